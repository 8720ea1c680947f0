/**
 * The module's windows are ApplicationV2s (`foundry.applications.api.ApplicationV2`, in core
 * since v12 and the standard in v13: https://foundryvtt.com/api/v12/classes/foundry.applications.api.ApplicationV2.html).
 * They render plain HTML strings (no Handlebars templates to ship): `_renderHTML` returns the
 * string, `_replaceHTML` puts it into the window's content element.
 *
 * Classes are made on first use, because `foundry` exists only once Foundry (or the test
 * stand-ins) has loaded; one class per base class, so each test world gets its own.
 */

const made = new WeakMap();

/**
 * @param {string} name  a unique name for the class
 * @param {(Base: any) => any} define  returns the subclass of the HTML window base
 * @returns {() => any} the class getter
 */
export function windowClass(name, define) {
  return () => {
    const Base = foundry.applications.api.ApplicationV2;
    if (!made.has(Base)) made.set(Base, new Map());
    const classes = made.get(Base);
    if (!classes.has(name)) classes.set(name, define(htmlWindow(Base)));
    return classes.get(name);
  };
}

const bases = new WeakMap();

/**
 * ApplicationV2 rendering the string from `bodyHtml(context)`.
 * @param {any} Base
 * @returns {any}
 */
function htmlWindow(Base) {
  if (!bases.has(Base)) {
    bases.set(Base, class SidecarWindow extends Base {
      /** @returns {string} */
      bodyHtml(_context) {
        return "";
      }

      async _renderHTML(context, _options) {
        return this.bodyHtml(context);
      }

      _replaceHTML(result, content, _options) {
        content.innerHTML = result;
      }
    });
  }
  return bases.get(Base);
}
