/**
 * Whether a point lies in a region: in one of its solid shapes and in none of its holes
 * (RegionDocument shapes: https://foundryvtt.com/api/classes/foundry.data.BaseShapeData.html).
 * Boundaries count as inside: a door drawn on a chest region's edge belongs to it.
 * Rectangles rotate about their centre, ellipses about theirs; rotation is in degrees.
 */

/**
 * (x, y) turned by -rotation about (cx, cy): the point in the shape's own axes.
 * @returns {[number, number]}
 */
function unrotate(x, y, cx, cy, rotation) {
  const r = (-(Number(rotation) || 0) * Math.PI) / 180;
  const dx = x - cx;
  const dy = y - cy;
  return [cx + dx * Math.cos(r) - dy * Math.sin(r), cy + dx * Math.sin(r) + dy * Math.cos(r)];
}

/** Even-odd ray test; points on an edge count as inside. */
function inPolygon(points, x, y) {
  const n = Math.floor(points.length / 2);
  if (n < 3) return false;
  let inside = false;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const xi = points[2 * i];
    const yi = points[2 * i + 1];
    const xj = points[2 * j];
    const yj = points[2 * j + 1];
    const cross = (x - xi) * (yj - yi) - (y - yi) * (xj - xi);
    if (Math.abs(cross) < 1e-9 && x >= Math.min(xi, xj) - 1e-9 && x <= Math.max(xi, xj) + 1e-9
      && y >= Math.min(yi, yj) - 1e-9 && y <= Math.max(yi, yj) + 1e-9) return true;
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/**
 * @param {object} shape  region shape data
 * @param {number} x
 * @param {number} y
 * @returns {boolean}
 */
export function shapeContains(shape, x, y) {
  const s = typeof shape?.toObject === "function" ? shape.toObject() : shape;
  switch (s?.type) {
    case "rectangle": {
      const [px, py] = unrotate(x, y, s.x + s.width / 2, s.y + s.height / 2, s.rotation);
      return px >= s.x && px <= s.x + s.width && py >= s.y && py <= s.y + s.height;
    }
    case "circle":
      return Math.hypot(x - s.x, y - s.y) <= s.radius;
    case "ellipse": {
      if (!(s.radiusX > 0 && s.radiusY > 0)) return false;
      const [px, py] = unrotate(x, y, s.x, s.y, s.rotation);
      return ((px - s.x) / s.radiusX) ** 2 + ((py - s.y) / s.radiusY) ** 2 <= 1 + 1e-9;
    }
    case "polygon":
      return Array.isArray(s.points) && inPolygon(s.points, x, y);
    default:
      return false;
  }
}

/**
 * @param {object} region  a RegionDocument
 * @param {number} x
 * @param {number} y
 * @returns {boolean}
 */
export function regionContains(region, x, y) {
  const shapes = [...(region?.shapes ?? [])];
  const solid = shapes.some((s) => !s.hole && shapeContains(s, x, y));
  if (!solid) return false;
  // A point on a hole's edge stays in the region (the hole's inside is what is cut out).
  return !shapes.some((s) => s.hole && shapeContains(s, x, y) && !onEdgeOnly(s, x, y));
}

/** Whether the point is on the shape's boundary rather than strictly inside. */
function onEdgeOnly(shape, x, y) {
  const eps = 1e-6;
  return [[eps, 0], [-eps, 0], [0, eps], [0, -eps]].some(([dx, dy]) => !shapeContains(shape, x + dx, y + dy));
}
