// The display's own request schemas. Every limit, enum, pattern and required field of a form
// comes from the display's /v1/openapi.json (its request bodies), read once per display per
// page session through the controller's proxy: a form changes when the display's schema does,
// with no edit here. What the app adds is presentation only (titles, hints, order, which of the
// body's fields a form shows, how a value is entered), never a limit.
import { displayApi, bff } from "./api.js";

const documents = new Map(); // display URL -> Promise of its OpenAPI document

/** The display's OpenAPI document (cached for the page's life; a failed read is tried again next time). */
export function openapiOf(display) {
  let doc = documents.get(display.url);
  if (!doc) {
    doc = displayApi(display).get("/v1/openapi.json");
    documents.set(display.url, doc);
    doc.catch(() => documents.delete(display.url));
  }
  return doc;
}

/** `node` with every local `$ref` replaced by what it names (a cycle is left as an empty schema). */
function resolve(doc, node, seen = new Set()) {
  if (Array.isArray(node)) return node.map((n) => resolve(doc, n, seen));
  if (!node || typeof node !== "object") return node;
  if (typeof node.$ref === "string" && node.$ref.startsWith("#/")) {
    if (seen.has(node.$ref)) return {};
    const target = node.$ref.slice(2).split("/").reduce((at, key) => (at ? at[key.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined), doc);
    return resolve(doc, target || {}, new Set([...seen, node.$ref]));
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(doc, v, seen)]));
}

/** The JSON request body schema of `method path` on the display (an error when it has none). */
export async function requestSchema(display, method, path) {
  return bodyIn(await openapiOf(display), method, path);
}

let controllerDoc = null;
/** The same for the controller's own routes (/bff/v1/openapi.json), e.g. a backup target. */
export async function controllerRequestSchema(method, path) {
  if (!controllerDoc) {
    controllerDoc = bff.get("/openapi.json");
    controllerDoc.catch(() => { controllerDoc = null; });
  }
  return bodyIn(await controllerDoc, method, path);
}

function bodyIn(doc, method, path) {
  const op = ((doc && doc.paths) || {})[path];
  const schema = op && op[method.toLowerCase()] && op[method.toLowerCase()].requestBody
    && (op[method.toLowerCase()].requestBody.content || {})["application/json"];
  if (!schema || !schema.schema) throw new Error(`The display does not describe ${method} ${path}; it may be older than this app.`);
  return resolve(doc, schema.schema);
}

/**
 * A form's schema from a request body: the fields named in `look` first (in that order, each
 * with its presentation laid over the display's schema: title, description, format), then the
 * body's other fields unless `omit`ted or `only` is set, so a field the display adds shows up
 * by itself. Limits, enums, patterns and `required` stay the display's.
 */
export function formSchema(body, look = {}, { omit = [], only = false } = {}) {
  const props = (body && body.properties) || {};
  const names = [...Object.keys(look).filter((n) => n in props),
    ...(only ? [] : Object.keys(props).filter((n) => !(n in look) && !omit.includes(n)))];
  return {
    type: "object",
    required: ((body && body.required) || []).filter((n) => names.includes(n)),
    properties: Object.fromEntries(names.map((n) => [n, { ...props[n], ...look[n] }])),
  };
}

/** One property of a request body (an empty schema when the display has no such field). */
export function property(body, name) {
  return ((body && body.properties) || {})[name] || {};
}

/** The min/max/maxlength attributes of an input for `schema`. */
export function inputLimits(schema) {
  const out = {};
  if (schema.minimum !== undefined) out.min = String(schema.minimum);
  if (schema.maximum !== undefined) out.max = String(schema.maximum);
  if (schema.maxLength !== undefined) out.maxlength = String(schema.maxLength);
  return out;
}

/** [value, text] choices for an enum: `words` names the values it knows, others show as they are. */
export function choices(schema, words = {}) {
  const values = Array.isArray(schema.enum) ? schema.enum : (schema.items && Array.isArray(schema.items.enum) ? schema.items.enum : []);
  return values.map((v) => [v, words[v] || String(v)]);
}
