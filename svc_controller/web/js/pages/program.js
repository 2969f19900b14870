// Program: screens, ticker tapes and overlays, with forms generated from each type's schema.
import { displayApi, describeError, ApiError } from "../api.js";
import { h, replace, field, setFieldError, button, notify, confirmDialog } from "../dom.js";
import { schemaFields, humanize } from "../schemaform.js";
import { needDisplay, section, toggle, table } from "./common.js";
import { requestSchema, formSchema } from "../contract.js";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
// The row fields of each kind: the display's request bodies (POST to create, PATCH to edit, from
// its /v1/openapi.json) with these titles laid over; the limits are the display's, and a field
// the display adds shows up without an edit here.
const OMIT = ["id", "config_json", "overlay_kind", "messages_json"];
const KINDS = {
  screens: {
    title: "Screens", one: "screen", path: "/v1/screens", typeField: "screen_type", nameField: "name",
    meta: async (api) => (await api.get("/v1/meta/screen-types")).items,
    look: { name: { title: "Name" }, description: { title: "Description" }, enabled: { title: "Enabled" },
      dwell_seconds: { title: "Dwell time (seconds)" },
      frequency_weight: { title: "Weight" }, sort_order: { title: "Sort order" },
      data_key: { title: "Data key" }, require_news_photo: { title: "Only news with a photo" } },
    columns: (row) => [`${row.dwell_seconds} s`, String(row.frequency_weight)], headers: ["Dwell", "Weight"],
  },
  tickers: {
    title: "Ticker tapes", one: "ticker tape", path: "/v1/ticker/tapes", typeField: "ticker_type", nameField: "name",
    meta: async (api) => (await api.get("/v1/meta/ticker-tape-types")).items,
    look: { name: { title: "Name" }, description: { title: "Description" }, enabled: { title: "Enabled" },
      frequency_weight: { title: "Weight" }, sort_order: { title: "Sort order" } },
    columns: (row) => [String(row.frequency_weight)], headers: ["Weight"],
  },
  overlays: {
    title: "Overlays", one: "overlay", path: "/v1/display/overlays", typeField: "overlay_type", nameField: "label",
    meta: async (api) => (await api.get("/v1/meta/config-schemas")).overlay_types,
    look: { label: { title: "Label" }, enabled: { title: "Enabled" },
      start_month: { title: "Start month" }, start_day: { title: "Start day" },
      end_month: { title: "End month", description: "Leave empty for a one-day window." }, end_day: { title: "End day" },
      repeat_annually: { title: "Repeat every year" }, year_exact: { title: "Only in year" },
      nth_week_of_month: { title: "Nth week of the month", description: "With the weekday below: for example the 2nd Sunday." },
      nth_weekday: { title: "Weekday (1 = Monday … 7 = Sunday)" } },
    columns: (row) => [windowText(row)], headers: ["When"],
  },
};

function windowText(row) {
  const start = `${MONTHS[row.start_month - 1] || "?"} ${row.start_day}`;
  const end = row.end_month ? ` – ${MONTHS[row.end_month - 1]} ${row.end_day}` : "";
  const nth = row.nth_week_of_month ? ` (week ${row.nth_week_of_month}, weekday ${row.nth_weekday})` : "";
  return `${start}${end}${nth}${row.year_exact ? ` ${row.year_exact}` : ""}${row.repeat_annually ? ", every year" : ""}`;
}

function typeId(kind, t) { return t[KINDS[kind].typeField]; }

/** The editor of one row: create (row null) or edit. */
function editor(kind, api, types, bodies, row, done) {
  const spec = KINDS[kind];
  const creating = row === null;
  const typeSelect = h("select", { name: spec.typeField, disabled: !creating },
    types.map((t) => h("option", { value: typeId(kind, t) }, t.label || humanize(typeId(kind, t)))));
  const typeField = field("Type", typeSelect);
  const idField = field("Id", h("input", { type: "text", name: "id", autocomplete: "off", spellcheck: "false" }),
    { hint: "Letters, digits, dots, dashes; kept for good." });
  // a new overlay shows all year, every year, until its window is narrowed (1 January alone was a
  // one-day window: an overlay created without touching the dates never showed)
  const whole = { start_month: 1, start_day: 1, end_month: 12, end_day: 31, repeat_annually: true };
  const rowSchema = formSchema(creating ? bodies.create : bodies.edit, spec.look, { omit: [...OMIT, spec.typeField] });
  const common = schemaFields(rowSchema, creating ? { enabled: true, ...(kind === "overlays" ? whole : {}) } : row,
    { legend: `About this ${spec.one}`, keepUnknown: false });
  const configHolder = h("div", {});
  let config = null;
  const drawConfig = (initial) => {
    const t = types.find((x) => typeId(kind, x) === typeSelect.value);
    config = schemaFields(t ? t.config_json_schema : {}, initial, { legend: `${t ? t.label : "Type"} settings` });
    replace(configHolder, t && t.description ? h("p", { class: "hint" }, t.description) : null, config.element);
  };
  if (creating) {
    typeSelect.value = typeId(kind, types[0]);
    idField.input.value = `${typeSelect.value}-${Math.random().toString(36).slice(2, 6)}`;
    typeSelect.addEventListener("change", () => {
      const t = types.find((x) => typeId(kind, x) === typeSelect.value);
      idField.input.value = `${typeSelect.value}-${Math.random().toString(36).slice(2, 6)}`;
      drawConfig(t ? t.example_config_json : {});
    });
    drawConfig(types[0] ? types[0].example_config_json : {});
  } else {
    typeSelect.value = row[spec.typeField];
    drawConfig(row.config_json || {});
  }
  const save = h("button", { type: "submit", class: "primary" }, creating ? `Create ${spec.one}` : "Save changes");
  const form = h("form", { class: "stack editor", novalidate: true, "aria-label": creating ? `New ${spec.one}` : `Edit ${row.id}` },
    h("h3", {}, creating ? `New ${spec.one}` : `Edit ${spec.one} ${row.id}`),
    typeField.wrap, creating ? idField.wrap : null, common.element, configHolder,
    h("div", { class: "actions" }, save, button("Cancel", () => done(false), { kind: "secondary" })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    setFieldError(idField, []);
    const a = common.collect();
    const c = config.collect();
    const id = idField.input.value.trim();
    if (creating && !id && kind !== "overlays") { setFieldError(idField, "Give it an id."); }
    if (!a.ok || !c.ok || (creating && !id && kind !== "overlays")) {
      notify("Some values need fixing: see the messages next to the fields.", "error");
      form.querySelector("[aria-invalid=true]")?.focus();
      return;
    }
    const body = { ...a.value, config_json: c.value };
    save.disabled = true;
    try {
      if (creating) {
        body[spec.typeField] = typeSelect.value;
        if (id) body.id = id;
        await api.post(spec.path, body);
      } else {
        await api.patch(`${spec.path}/${encodeURIComponent(row.id)}`, body);
      }
      notify(creating ? `${humanize(spec.one)} created.` : "Changes saved.");
      done(true);
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed" && err.details) {
        for (const [key, value] of Object.entries(err.details)) {
          if (key === "config_json" && value && !Array.isArray(value)) config.showErrors(value);
          else if (key === "id") setFieldError(idField, value);
          else common.showErrors({ [`/${key}`]: value });
        }
        form.querySelector("[aria-invalid=true]")?.focus();
      } else if (err instanceof ApiError && err.status === 409) {
        setFieldError(idField, "This id is taken; choose another.");
        idField.input.focus();
      }
      notify(describeError(err), "error");
    } finally {
      save.disabled = false;
    }
  });
  return form;
}

async function kindSection(kind, api, display, holder) {
  const spec = KINDS[kind];
  const [rows, types, create, edit] = await Promise.all([api.get(spec.path), spec.meta(api),
    requestSchema(display, "POST", spec.path), requestSchema(display, "PATCH", `${spec.path}/{id}`)]);
  const bodies = { create, edit };
  const reload = () => kindSection(kind, api, display, holder).catch((err) => notify(describeError(err), "error"));
  const open = (row) => {
    const form = editor(kind, api, types, bodies, row, (changed) => (changed ? reload() : replace(holder, view)));
    replace(holder, h("section", { class: "card" }, form));
    form.querySelector("select:not([disabled]), input")?.focus();
  };
  const items = rows.items || [];
  const view = section(spec.title,
    items.length ? table(["Name", "Type", ...spec.headers, "On", "Actions"], items.map((row) => {
      const label = row[spec.nameField] || row.id;
      return h("tr", { dataset: { id: row.id } },
        h("th", { scope: "row" }, label, label !== row.id ? h("span", { class: "hint mono" }, ` ${row.id}`) : null),
        h("td", {}, row[spec.typeField]), spec.columns(row).map((c) => h("td", {}, c)),
        h("td", {}, toggle(`${label} enabled`, row.enabled, async (on) => {
          await api.patch(`${spec.path}/${encodeURIComponent(row.id)}`, { enabled: on });
          notify(`${label} ${on ? "enabled" : "disabled"}.`);
        })),
        h("td", { class: "actions" },
          button("Edit", () => open(row), { "aria-label": `Edit ${label}` }),
          button("Delete", async () => {
            if (!(await confirmDialog(`Delete ${label}?`, `The ${spec.one} is removed from the display.`, "Delete"))) return;
            try { await api.del(`${spec.path}/${encodeURIComponent(row.id)}`); notify(`${label} deleted.`); reload(); }
            catch (err) { notify(describeError(err), "error"); }
          }, { kind: "danger", "aria-label": `Delete ${label}` })));
    }), spec.title) : h("p", {}, `No ${spec.one} yet.`),
    h("div", { class: "actions" }, button(`New ${spec.one}`, () => open(null), { kind: "primary" })));
  view.dataset.kind = kind;
  replace(holder, view);
}

export async function render(main, { display }) {
  if (!display) return needDisplay(main, "Program");
  const api = displayApi(display);
  const holders = Object.fromEntries(Object.keys(KINDS).map((k) => [k, h("div", { id: `program-${k}` }, "Loading…")]));
  replace(main, h("h1", {}, `Program of ${display.name}`), Object.values(holders));
  const overlaysOn = await api.get("/v1/config/key-values").then((kv) => kv.items.find((i) => i.key === "display.overlay.enabled"), () => null);
  if (overlaysOn && overlaysOn.value === "false") {
    main.insertBefore(h("p", { class: "note warn" }, "All overlays are switched off on this display (key-value display.overlay.enabled = false)."), holders.screens);
  }
  await Promise.all(Object.keys(KINDS).map((k) => kindSection(k, api, display, holders[k]).catch((err) =>
    replace(holders[k], section(KINDS[k].title, h("p", { class: "note error" }, describeError(err)))))));
}
