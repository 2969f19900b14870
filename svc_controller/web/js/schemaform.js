// Forms generated from a type's config_json_schema (JSON Schema 2020-12, the closed
// objects the display's types declare). Each property gets a labelled control; values are
// checked here for a quick answer and again by the display, whose validation_failed
// details (JSON pointers) are shown next to the field they concern.
import { h, field, setFieldError } from "./dom.js";

const HEX_PATTERN = "^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$";

export function humanize(name) {
  return String(name).replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").replace(/^./, (c) => c.toUpperCase());
}

/** The schema's type, a nullable one (["string", "null"], as OpenAPI 3.1 writes it) read as its other type. */
export function typeOf(schema) {
  if (!Array.isArray(schema.type)) return schema.type;
  const types = schema.type.filter((t) => t !== "null");
  return types.length === 1 ? types[0] : schema.type;
}

function kindOf(schema) {
  if (Array.isArray(schema.enum)) return "enum";
  const type = typeOf(schema);
  if (type === "array") {
    const items = schema.items || {};
    if (Array.isArray(items.enum)) return "enum-list";
    if (typeOf(items) === "string") return "string-list";
    return "json";
  }
  if (type === "object" || type === undefined || Array.isArray(type)) return "json";
  return type; // string, integer, number, boolean
}

/** An enum value's words: the form's `enumTitles` (a presentation overlay), else the display's
 * own (`x-enum-titles` of the served schema, docs/plugins.md), else the value in words. */
export function enumTitle(schema, value) {
  const titles = schema.enumTitles || schema["x-enum-titles"] || {};
  return titles[value] || (typeof value === "string" ? humanize(value) : String(value));
}

function control(name, schema, required, value) {
  const kind = kindOf(schema);
  switch (kind) {
    case "enum": {
      const select = h("select", { name },
        required ? null : h("option", { value: "" }, schema.emptyTitle || "(default)"),
        schema.enum.map((v) => h("option", { value: JSON.stringify(v) }, enumTitle(schema, v))));
      select.value = value === undefined ? (required ? JSON.stringify(schema.enum[0]) : "") : JSON.stringify(value);
      return { kind, input: select };
    }
    case "boolean": {
      const select = h("select", { name },
        h("option", { value: "" }, "(default)"), h("option", { value: "true" }, "Yes"), h("option", { value: "false" }, "No"));
      select.value = value === undefined ? "" : String(Boolean(value));
      return { kind, input: select };
    }
    case "integer":
    case "number":
      return { kind, input: h("input", { name, type: "number", inputmode: kind === "integer" ? "numeric" : "decimal",
        step: kind === "integer" ? "1" : "any", min: schema.minimum, max: schema.maximum,
        value: value === undefined ? "" : String(value) }) };
    case "string": {
      if (schema.format === "date-time") {
        return { kind, input: h("input", { name, type: "datetime-local", value: value === undefined ? "" : value }) };
      }
      const long = (schema.maxLength || 0) > 200;
      const attrs = { name, value: value === undefined ? "" : value, spellcheck: long ? "true" : "false" };
      if (schema.pattern === HEX_PATTERN) {
        // a colour: typed (any of the display's forms, #rgb to #rrggbbaa) or picked
        attrs.placeholder = "#1a2b3c";
        const text = h("input", { ...attrs, type: "text", class: "colour-text" });
        const picker = h("input", { type: "color", value: /^#[0-9a-fA-F]{6}$/.test(attrs.value) ? attrs.value : "#000000" });
        picker.addEventListener("input", () => { text.value = picker.value; });
        text.addEventListener("input", () => { if (/^#[0-9a-fA-F]{6}$/.test(text.value)) picker.value = text.value.toLowerCase(); });
        return { kind, input: text, picker };
      }
      return { kind, input: long ? h("textarea", { ...attrs, rows: 3 }) : h("input", { ...attrs, type: "text" }) };
    }
    case "string-list":
      return { kind, input: h("textarea", { name, rows: 3, value: Array.isArray(value) ? value.join("\n") : "" }),
        hint: "One per line." };
    case "enum-list": {
      const box = h("fieldset", { class: "choices", name },
        schema.items.enum.map((v) => h("label", { class: "check" },
          h("input", { type: "checkbox", value: JSON.stringify(v), checked: Array.isArray(value) && value.includes(v) }), " ", enumTitle(schema.items, v))));
      return { kind, input: box };
    }
    default:
      return { kind: "json", input: h("textarea", { name, rows: 3, class: "mono", spellcheck: "false",
        value: value === undefined ? "" : JSON.stringify(value, null, 2) }), hint: "JSON." };
  }
}

function read(f) {
  const { kind, input } = f;
  if (kind === "enum") return input.value === "" ? undefined : JSON.parse(input.value);
  if (kind === "boolean") return input.value === "" ? undefined : input.value === "true";
  if (kind === "integer" || kind === "number") {
    if (input.value.trim() === "") return input.validity && input.validity.badInput ? NaN : undefined;
    return Number(input.value);
  }
  if (kind === "string") return input.value === "" ? undefined : input.value;
  if (kind === "string-list") {
    const lines = input.value.split("\n").map((s) => s.trim()).filter(Boolean);
    return lines.length ? lines : undefined;
  }
  if (kind === "enum-list") {
    const picked = [...input.querySelectorAll("input:checked")].map((c) => JSON.parse(c.value));
    return picked.length ? picked : undefined;
  }
  if (input.value.trim() === "") return undefined;
  try { return JSON.parse(input.value); } catch { return { __invalidJson: true }; }
}

/** Messages for one value against its schema (the common keywords only; the display checks the rest). */
export function check(schema, value, required) {
  if (value === undefined) return required ? ["This field is required."] : [];
  if (value && value.__invalidJson) return ["This is not valid JSON."];
  const out = [];
  const type = typeOf(schema);
  if ((type === "number" || type === "integer") && Number.isNaN(value)) return ["Enter a number."];
  if (type === "integer" && !Number.isInteger(value)) out.push("Enter a whole number.");
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`Must be at least ${schema.minimum}.`);
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`Must be at most ${schema.maximum}.`);
  }
  if (typeof value === "string") {
    if (schema.minLength && value.length < schema.minLength) out.push(schema.minLength === 1 ? "This field is required." : `At least ${schema.minLength} characters.`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) out.push(`At most ${schema.maxLength} characters.`);
    if (schema.pattern && !new RegExp(schema.pattern, "u").test(value)) {
      // patternMessage: the form's own words for the display's pattern (presentation)
      out.push(schema.patternMessage || (schema.pattern === HEX_PATTERN ? "Enter a colour such as #1a2b3c." : "This value does not have the expected form."));
    }
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push(`At most ${schema.maxItems} entries.`);
    if (schema.items && typeOf(schema.items) === "string") {
      for (const item of value) out.push(...check(schema.items, item, false).map((m) => `"${item}": ${m}`));
    }
  }
  return out;
}

/**
 * A form section for `schema` filled with `initial` (keys it does not list are sent back
 * unchanged unless keepUnknown is false). Returns
 * {element, collect() -> {value, ok}, showErrors(byPointer) -> leftover messages}.
 */
export function schemaFields(schema, initial = {}, { legend = "Settings of this type", keepUnknown = true } = {}) {
  const props = (schema && schema.properties) || {};
  const required = new Set((schema && schema.required) || []);
  const fields = {};
  const known = Object.keys(props);
  const rows = known.map((name) => {
    const sub = props[name];
    // a null (a nullable field not set) is shown as not set
    const c = control(name, sub, required.has(name), initial && initial[name] !== null ? initial[name] : undefined);
    const label = `${sub.title || humanize(name)}${required.has(name) ? " (required)" : ""}`;
    const f = field(label, c.input, { hint: sub.description || c.hint, name });
    if (c.picker) { // the picker beside the text box, named after the field
      c.picker.setAttribute("aria-label", `${sub.title || humanize(name)}: pick a colour`);
      const pair = h("div", { class: "colour-pair" });
      c.input.replaceWith(pair);
      pair.append(c.input, c.picker);
    }
    if (required.has(name)) c.input.setAttribute("aria-required", "true");
    fields[name] = { ...f, ...c, schema: sub, required: required.has(name) };
    return f.wrap;
  });
  // Keys the schema does not list (from a newer display, say) are kept as they were.
  const extra = keepUnknown ? Object.fromEntries(Object.entries(initial || {}).filter(([k]) => !(k in props))) : {};
  const formError = h("p", { class: "field-error", hidden: true });
  const element = h("fieldset", { class: "schema" }, h("legend", {}, legend),
    rows.length ? rows : h("p", { class: "hint" }, "This type has no settings."), formError);

  function collect() {
    const value = { ...extra };
    let ok = true;
    for (const [name, f] of Object.entries(fields)) {
      const v = read(f);
      const messages = check(f.schema, v, f.required);
      setFieldError(f, messages);
      if (messages.length) ok = false;
      if (v !== undefined) value[name] = v;
    }
    return { value, ok };
  }

  function showErrors(byPointer) {
    const leftover = [];
    for (const [pointer, messages] of Object.entries(byPointer || {})) {
      const name = pointer.split("/")[1];
      if (name && fields[name]) setFieldError(fields[name], messages);
      else leftover.push(...[].concat(messages));
    }
    formError.hidden = leftover.length === 0;
    formError.textContent = leftover.join(" ");
  }

  function focusFirstError() {
    const bad = element.querySelector("[aria-invalid=true]");
    if (bad) bad.focus();
  }

  return { element, collect, showErrors, focusFirstError, fields };
}
