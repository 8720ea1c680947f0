/** Small DOM helpers shared by the module's windows, dialogs and buttons. */

/**
 * The element a render hook passed: v13 gives an HTMLElement, v12 a jQuery object.
 * @param {any} html
 * @returns {any} the element, or null
 */
export function asElement(html) {
  if (!html) return null;
  if (html.jquery !== undefined || (typeof html.length === "number" && html[0])) return html[0] ?? null;
  return html;
}

/**
 * A form's fields by name: checkboxes as booleans, multiple selects as arrays, the rest as
 * strings; radio buttons give the checked one's value.
 * @param {{elements?: Iterable<any>}|null|undefined} form
 * @returns {Record<string, string|boolean|string[]>}
 */
export function formValues(form) {
  const values = {};
  for (const element of form?.elements ?? []) {
    const name = element?.name;
    if (!name) continue;
    if (element.type === "checkbox") values[name] = Boolean(element.checked);
    else if (element.type === "radio") {
      if (element.checked) values[name] = String(element.value);
    } else if (element.multiple) values[name] = [...(element.selectedOptions ?? [])].map((o) => String(o.value));
    else values[name] = String(element.value ?? "");
  }
  return values;
}

/**
 * `<option>`s for a select.
 * @param {Array<{value: string, label: string}>} options
 * @param {string} [selected]
 * @param {(text: unknown) => string} escape
 * @returns {string}
 */
export function optionsHtml(options, selected, escape) {
  return options
    .map((o) => `<option value="${escape(o.value)}"${o.value === selected ? " selected" : ""}>${escape(o.label)}</option>`)
    .join("");
}
