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
// Row fields only some types read: shown for a type whose config schema lists them under
// "x-row-fields" (docs/plugins.md), or for a row that has a value in one.
const TYPE_ROW_FIELDS = ["data_key", "require_news_photo"];
const WEIGHT_HINT = "How often it comes round: 1 is once in each round, 2 twice (spread out), 0 leaves it out; at most 10.";
const KINDS = {
  screens: {
    title: "Screens", one: "screen", path: "/v1/screens", typeField: "screen_type", nameField: "name", defaultType: "message",
    meta: async (api) => (await api.get("/v1/meta/screen-types")).items,
    look: { name: { title: "Name" }, description: { title: "Description" }, enabled: { title: "Enabled" },
      dwell_seconds: { title: "Dwell time (seconds)" },
      frequency_weight: { title: "Weight", description: WEIGHT_HINT }, sort_order: { title: "Sort order" },
      data_key: { title: "Data key", description: "Which data the slide reads (a feed, a category, a board…), over its settings below." },
      require_news_photo: { title: "Only news with a photo" } },
    columns: (row) => [`${row.dwell_seconds} s`, String(row.frequency_weight)], headers: ["Dwell", "Weight"],
  },
  tickers: {
    title: "Ticker tapes", one: "ticker tape", path: "/v1/ticker/tapes", typeField: "ticker_type", nameField: "name", defaultType: "text",
    meta: async (api) => (await api.get("/v1/meta/ticker-tape-types")).items,
    look: { name: { title: "Name" }, description: { title: "Description" }, enabled: { title: "Enabled" },
      frequency_weight: { title: "Weight", description: WEIGHT_HINT }, sort_order: { title: "Sort order" } },
    columns: (row) => [String(row.frequency_weight)], headers: ["Weight"],
  },
  overlays: {
    title: "Overlays", one: "overlay", path: "/v1/display/overlays", typeField: "overlay_type", nameField: "label", defaultType: "bouncing_message",
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

/** A type's words: its label from the display's type list, else its id in words. */
function typeLabel(kind, types, id) {
  const t = types.find((x) => typeId(kind, x) === id);
  return (t && t.label) || humanize(id || "");
}

/** What a row is called: its name, else its type's label (ids are for the details view). */
function rowLabel(kind, types, row) {
  return row[KINDS[kind].nameField] || typeLabel(kind, types, row[KINDS[kind].typeField]);
}

// Why a row is not on the screen (issue 34): its type no loaded plugin provides (the display's
// type list), or what the display's screen report (GET /v1/display/screen) says is skipped or failing.
const REPORT_KIND = { screens: "screen", tickers: "ticker", overlays: "overlay" };
function problem(kind, row, types, screen) {
  const type = row[KINDS[kind].typeField];
  if (!types.some((t) => typeId(kind, t) === type)) return `Not shown: no loaded plugin provides the type ${type}.`;
  if (!screen || !row.enabled) return null;
  const skipped = kind === "screens" ? (screen.skipped || []).find((s) => s.screen_id === row.id) : null;
  if (skipped) return `Not shown: ${skipped.message}`;
  const failing = (screen.failing || []).find((f) => f.kind === REPORT_KIND[kind] && f.type === type);
  return failing ? `Failing: ${failing.message} (plugin ${failing.plugin}, ${failing.count}× in a row)` : null;
}

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
  const rowBody = creating ? bodies.create : bodies.edit;
  // a new row starts from the display's defaults (its request body's "default"s: a dwell time, a weight)
  const defaults = Object.fromEntries(Object.entries(rowBody.properties || {})
    .filter(([, p]) => p.default !== undefined && p.default !== null).map(([n, p]) => [n, p.default]));
  const commonHolder = h("div", {});
  let common = null;
  const drawCommon = (t, initial) => {
    const reads = (t && t.config_json_schema && t.config_json_schema["x-row-fields"]) || [];
    const hidden = TYPE_ROW_FIELDS.filter((n) => !reads.includes(n) && (creating || row[n] === null || row[n] === undefined));
    const look = Object.fromEntries(Object.entries(spec.look).filter(([n]) => !hidden.includes(n)));
    common = schemaFields(formSchema(rowBody, look, { omit: [...OMIT, spec.typeField, ...hidden] }), initial,
      { legend: `About this ${spec.one}`, keepUnknown: false });
    replace(commonHolder, common.element);
  };
  const configHolder = h("div", {});
  let config = null;
  const drawConfig = (initial) => {
    const t = types.find((x) => typeId(kind, x) === typeSelect.value);
    config = schemaFields(t ? t.config_json_schema : {}, initial, { legend: `${t ? t.label : "Type"} settings` });
    replace(configHolder, t && t.description ? h("p", { class: "hint" }, t.description) : null, config.element);
  };
  if (creating) {
    // the simplest type first (a message, a text tape), not whichever sorts first
    const first = types.find((t) => typeId(kind, t) === spec.defaultType) || types[0];
    typeSelect.value = first ? typeId(kind, first) : "";
    idField.input.value = `${typeSelect.value}-${Math.random().toString(36).slice(2, 6)}`;
    typeSelect.addEventListener("change", () => {
      const t = types.find((x) => typeId(kind, x) === typeSelect.value);
      idField.input.value = `${typeSelect.value}-${Math.random().toString(36).slice(2, 6)}`;
      drawCommon(t, { ...common.collect().value });
      drawConfig(t ? t.example_config_json : {});
    });
    drawCommon(first, { ...defaults, enabled: true, ...(kind === "overlays" ? whole : {}) });
    drawConfig(first ? first.example_config_json : {});
  } else {
    typeSelect.value = row[spec.typeField];
    drawCommon(types.find((x) => typeId(kind, x) === row[spec.typeField]), row);
    drawConfig(row.config_json || {});
  }
  const save = h("button", { type: "submit", class: "primary" }, creating ? `Create ${spec.one}` : "Save changes");
  const label = creating ? null : rowLabel(kind, types, row);
  const form = h("form", { class: "stack editor", novalidate: true, "aria-label": creating ? `New ${spec.one}` : `Edit ${label}` },
    h("h3", {}, creating ? `New ${spec.one}` : `Edit ${spec.one} “${label}”`),
    // the details: the row's id, for those who need it (API calls, logs)
    creating ? null : h("p", { class: "hint" }, "Id ", h("span", { class: "mono" }, row.id)),
    typeField.wrap, creating ? idField.wrap : null, commonHolder, configHolder,
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
    // a row left without a name is called after its type, not after its id
    if (creating && !body[spec.nameField]) body[spec.nameField] = typeLabel(kind, types, typeSelect.value);
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
  const [rows, types, create, edit, screen] = await Promise.all([api.get(spec.path), spec.meta(api),
    requestSchema(display, "POST", spec.path), requestSchema(display, "PATCH", `${spec.path}/{id}`),
    api.get("/v1/display/screen").catch(() => null)]);
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
      const label = rowLabel(kind, types, row);
      const why = problem(kind, row, types, screen);
      return h("tr", { dataset: { id: row.id }, class: why ? "problem" : null },
        h("th", { scope: "row" }, label),
        h("td", {}, typeLabel(kind, types, row[spec.typeField]), why ? h("p", { class: "note warn", role: "status" }, why,
          " Switch it off or delete it until its plugin works.") : null),
        spec.columns(row).map((c) => h("td", {}, c)),
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
