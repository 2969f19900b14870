// Content: interests, integrations (secrets entered, never shown back), the catalog with
// search and moderation, manual entries with photo upload.
import { displayApi, describeError, ApiError } from "../api.js";
import { h, replace, field, setFieldError, button, notify, confirmDialog, formatTime } from "../dom.js";
import { schemaFields, check } from "../schemaform.js";
import { requestSchema, formSchema, property, inputLimits, choices } from "../contract.js";
import { needDisplay, section, toggle, table } from "./common.js";

// Each interest form is the display's request body (POST <path> in its /v1/openapi.json) with
// these titles laid over; the limits, patterns and required fields are the display's.
const ID_LOOK = { title: "Id", description: "Kept for good; left empty, the display makes one." };
const INTERESTS = [
  { path: "/v1/interests/weather-locations", title: "Weather locations", one: "location",
    show: (r) => [r.name, `${r.latitude}, ${r.longitude}`],
    look: { id: ID_LOOK, name: { title: "Name" }, latitude: { title: "Latitude" }, longitude: { title: "Longitude" },
      include_active_weather_alerts: { title: "Include weather alerts" } } },
  { path: "/v1/interests/rss-feeds", title: "News feeds", one: "feed",
    show: (r) => [r.title || r.url, r.category || ""],
    look: { id: ID_LOOK, url: { title: "Feed address (URL)" }, title: { title: "Title" }, category: { title: "Category" },
      poll_seconds: { title: "Check every (seconds)" }, max_articles: { title: "Keep at most (articles)" } } },
  { path: "/v1/interests/stock-symbols", title: "Stock symbols", one: "symbol",
    show: (r) => [r.symbol, r.display_name || ""],
    look: { id: ID_LOOK, symbol: { title: "Symbol" }, display_name: { title: "Name shown" }, category: { title: "Category" } } },
  // The id of a joke or trivia interest is one of the display's content categories: picked
  // from GET /v1/curator/categories, or made there first (categoryForm).
  { path: "/v1/interests/joke-categories", title: "Joke categories", one: "category", categories: true },
  { path: "/v1/interests/trivia-categories", title: "Trivia categories", one: "category", categories: true },
];
const NEW_CATEGORY = "+new"; // never a category id (ids start with a letter or a digit)

function showServerErrors(err, form) {
  if (err instanceof ApiError && err.code === "validation_failed" && err.details) {
    form.showErrors(Object.fromEntries(Object.entries(err.details).map(([k, v]) => [`/${k}`, v])));
  }
  notify(describeError(err), "error");
}

function interestForm(api, spec, body, reload) {
  const form = schemaFields(formSchema(body, spec.look, { omit: ["enabled"] }), {}, { legend: `New ${spec.one}` });
  const el = h("form", { class: "stack", novalidate: true }, form.element,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, `Add ${spec.one}`)));
  el.addEventListener("submit", async (e) => {
    e.preventDefault();
    const { value, ok } = form.collect();
    if (!ok) return form.focusFirstError();
    try {
      const made = await api.post(spec.path, { enabled: true, ...value });
      notify(`${spec.title}: ${(made && made.id) || value.id} added.`);
      reload();
    }
    catch (err) { showServerErrors(err, form); }
  });
  return el;
}

/** Add a joke or trivia interest: a category picked from the display's list (those not yet
 *  chosen), or a new one made first with POST /v1/curator/categories. */
function categoryForm(api, spec, rows, categories, newCategory, reload) {
  const taken = new Set(rows.map((r) => r.id));
  const free = categories.filter((c) => !taken.has(c.id));
  const select = h("select", { name: "id" }, free.map((c) => h("option", { value: c.id }, `${c.label} (${c.id})`)),
    h("option", { value: NEW_CATEGORY }, "A new category…"));
  const pick = field("Category", select, { name: "id", hint: free.length ? "The display's content categories; the last choice makes a new one." : "Every category is chosen already: make a new one." });
  // the new category's id and name: the display's POST /v1/curator/categories body
  const made = schemaFields(formSchema(newCategory, {
    id: { title: "New category id", patternMessage: "Use lowercase letters, digits, - and _.",
      description: "Lowercase letters, digits, - and _." },
    label: { title: "New category name" } }, { only: true }), {}, { legend: "New category" });
  const newId = made.fields.id;
  const newLabel = made.fields.label;
  const newBox = made.element;
  const sync = () => { newBox.hidden = select.value !== NEW_CATEGORY; };
  select.addEventListener("change", sync);
  sync();
  const el = h("form", { class: "stack", novalidate: true, "aria-label": `New ${spec.title.toLowerCase().replace(/ies$/, "y")}` },
    pick.wrap, newBox, h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, `Add ${spec.one}`)));
  el.addEventListener("submit", async (e) => {
    e.preventDefault();
    [pick, newId, newLabel].forEach((f) => setFieldError(f, []));
    let id = select.value;
    if (id === NEW_CATEGORY) {
      const { value, ok } = made.collect();
      if (!ok) { made.focusFirstError(); return; }
      id = value.id;
      const label = value.label;
      try { await api.post("/v1/curator/categories", { id, label }); }
      catch (err) {
        if (err instanceof ApiError && err.status === 409) setFieldError(newId, "A category with this id exists already: pick it in the list.");
        else if (err instanceof ApiError && err.details) { setFieldError(newId, err.details.id); setFieldError(newLabel, err.details.label); }
        notify(describeError(err), "error");
        return;
      }
      // made: from now on it is one of the list's categories (a failed add below can be retried)
      select.insertBefore(h("option", { value: id }, `${label} (${id})`), select.lastChild);
      select.value = id;
      sync();
    }
    try { await api.post(spec.path, { id, enabled: true }); notify(`${spec.title}: ${id} added.`); reload(); }
    catch (err) {
      if (err instanceof ApiError && err.details) setFieldError(pick, err.details.id);
      notify(describeError(err), "error");
    }
  });
  return el;
}

async function interestSection(api, display, spec, holder) {
  const reload = () => interestSection(api, display, spec, holder);
  let rows;
  let categories = [];
  let body;
  try {
    [rows, categories, body] = await Promise.all([api.get(spec.path).then((r) => r.items),
      spec.categories ? api.get("/v1/curator/categories").then((r) => r.items) : [],
      spec.categories ? requestSchema(display, "POST", "/v1/curator/categories") : requestSchema(display, "POST", spec.path)]);
  } catch (err) { replace(holder, section(spec.title, h("p", { class: "note error" }, describeError(err)))); return; }
  const labels = Object.fromEntries(categories.map((c) => [c.id, c.label]));
  const show = spec.show || ((r) => [labels[r.id]]);
  const el = spec.categories ? categoryForm(api, spec, rows, categories, body, reload) : interestForm(api, spec, body, reload);
  replace(holder, section(spec.title,
    rows.length ? table(["Id", "", "On", "Actions"], rows.map((r) => h("tr", {},
      h("th", { scope: "row" }, r.id), h("td", {}, show(r).filter(Boolean).join(" · ")),
      h("td", {}, "enabled" in r ? toggle(`${r.id} enabled`, r.enabled, (on) => api.patch(`${spec.path}/${encodeURIComponent(r.id)}`, { enabled: on })) : ""),
      h("td", {}, button("Delete", async () => {
        if (!(await confirmDialog(`Delete ${r.id}?`, "Rows still used by content cannot be deleted; the display will say so.", "Delete"))) return;
        try { await api.del(`${spec.path}/${encodeURIComponent(r.id)}`); notify(`${r.id} deleted.`); reload(); }
        catch (err) { notify(describeError(err), "error"); }
      }, { kind: "danger", "aria-label": `Delete ${r.id}` })))), spec.title) : h("p", {}, "None yet."),
    h("details", {}, h("summary", {}, `Add a ${spec.one}`), el)));
}

function integrationRow(api, row, patchBody, reload) {
  // a row whose type no loaded plugin registers: shown, never editable (the display refuses its PATCH, 409)
  if (row.plugin_missing) return h("li", { class: "card integration" },
    h("h3", {}, row.integration_type, " ", h("code", { class: "id" }, row.id), " ", h("span", { class: "badge warn" }, "plugin missing")),
    h("p", { class: "note" }, "No loaded plugin provides this type (it failed to load or was removed). "
      + "Fix or restore the plugin and restart the display; the row and its settings are kept."));
  // the poll interval's limits: the display's PATCH /v1/integrations/{id} body
  const pollSchema = property(patchBody, "poll_seconds");
  const poll = h("input", { type: "number", step: "1", ...inputLimits(pollSchema), value: String(row.poll_seconds), "aria-label": `${row.id} poll interval in seconds`, class: "narrow" });
  const secretInputs = (row.secret_fields || []).map((s) => {
    const f = field(`${s.name}${s.configured ? " (set; type to replace)" : ""}`,
      h("input", { type: "password", autocomplete: "new-password", spellcheck: "false", placeholder: s.configured ? "••••••••" : "" }));
    return { name: s.name, f };
  });
  const schema = row.config_json_schema;
  const config = schema && Object.keys(schema.properties || {}).length
    ? schemaFields(schema, row.config_json || {}, { legend: `${row.label || row.integration_type} settings` }) : null;
  // every integration takes a base URL (spec: PATCH base_url, read back as config_json.baseUrl);
  // a type whose schema lists baseUrl shows it in its settings, any other gets this field
  const ownBaseUrl = !(schema && schema.properties && schema.properties.baseUrl);
  const baseUrl = ownBaseUrl ? field("Base URL", h("input", { type: "text", inputmode: "url", spellcheck: "false",
    value: (row.config_json || {}).baseUrl || "", "aria-label": `${row.id} base URL`, placeholder: "the provider's default" }),
    { hint: "Empty: the provider's default address." }) : null;
  const save = async () => {
    const body = {};
    const pollValue = poll.value.trim() === "" ? undefined : Number(poll.value);
    const pollProblems = check(pollSchema, pollValue, true);
    poll.setAttribute("aria-invalid", pollProblems.length ? "true" : "false");
    if (pollProblems.length) { notify(`${row.id}: poll interval: ${pollProblems.join(" ")}`, "error"); poll.focus(); return; }
    if (pollValue !== row.poll_seconds) body.poll_seconds = pollValue;
    if (config) {
      const { value, ok } = config.collect();
      if (!ok) { config.focusFirstError(); return; }
      if (JSON.stringify(value) !== JSON.stringify(row.config_json || {})) body.config_json = value;
    }
    if (baseUrl && baseUrl.input.value.trim() !== ((row.config_json || {}).baseUrl || "")) body.base_url = baseUrl.input.value.trim();
    const secrets = Object.fromEntries(secretInputs.filter((s) => s.f.input.value).map((s) => [s.name, s.f.input.value]));
    if (Object.keys(secrets).length) body.secrets = secrets;
    if (!Object.keys(body).length) { notify("Nothing changed."); return; }
    try {
      await api.patch(`/v1/integrations/${encodeURIComponent(row.id)}`, body);
      secretInputs.forEach((s) => { s.f.input.value = ""; }); // never kept on the page
      notify(`${row.id} saved.`);
      reload();
    } catch (err) {
      const details = err instanceof ApiError ? err.details : null;
      if (details && details.secrets && secretInputs[0]) setFieldError(secretInputs[0].f, details.secrets);
      if (details && details.config_json && config) config.showErrors(Array.isArray(details.config_json) ? { "/": details.config_json } : details.config_json);
      notify(describeError(err), "error");
    }
  };
  return h("li", { class: "card integration" },
    // the type's label as the title, the row's id beside it; a badge only for a type with secrets
    h("h3", {}, row.label || row.integration_type, " ", h("code", { class: "id" }, row.id),
      (row.secret_fields || []).length ? [" ", h("span", { class: `badge ${row.secrets_configured ? "ok" : "warn"}` }, row.secrets_configured ? "secrets set" : "secrets missing")] : null),
    h("div", { class: "row" }, h("label", { class: "check" }, toggle(`${row.id} enabled`, row.enabled,
      (on) => api.patch(`/v1/integrations/${encodeURIComponent(row.id)}`, { enabled: on })), " Enabled"),
      h("label", {}, "Poll every ", poll, " s")),
    config || baseUrl ? h("details", {}, h("summary", {}, "Settings"), config ? config.element : null, baseUrl ? baseUrl.wrap : null) : null,
    secretInputs.length ? h("details", {}, h("summary", {}, "Secrets"), secretInputs.map((s) => s.f.wrap)) : null,
    h("div", { class: "actions" }, button("Save", save, { "aria-label": `Save ${row.id}` })));
}

async function integrationsSection(api, display, holder) {
  const query = h("input", { type: "search", id: "integration-q", placeholder: "weather, news…" });
  const list = h("ul", { class: "cards", id: "integration-list", "aria-busy": "true" });
  let latest = 0; // only the newest load draws the list (an older answer arriving late is dropped)
  const load = async () => {
    const mine = ++latest;
    list.setAttribute("aria-busy", "true"); // until the newest answer is drawn
    try {
      const q = query.value.trim();
      // The display strips "_" and "%" from q (spec 4.12): "home assistant" finds home_assistant.
      const params = new URLSearchParams({ limit: "100", include_config_schema: "true" });
      if (enabledOnly.checked) params.set("enabled", "true");
      for (const word of q.split(/[\s_%]+/).filter(Boolean).slice(0, 1)) params.set("q", word);
      const [page, patchBody] = await Promise.all([api.get(`/v1/integrations?${params}`),
        requestSchema(display, "PATCH", "/v1/integrations/{id}")]);
      // The display sends each type's schema once, on the first row of that type.
      if (mine !== latest) return;
      const schemas = {};
      for (const r of page.items) if (r.config_json_schema) schemas[r.integration_type] = r.config_json_schema;
      replace(list, page.items.length ? page.items.map((r) => integrationRow(api, { ...r, config_json_schema: schemas[r.integration_type] }, patchBody, load))
        : h("li", {}, "No integration matches."));
      list.setAttribute("aria-busy", "false");
    } catch (err) {
      if (mine === latest) { replace(list, h("li", { class: "note error" }, describeError(err))); list.setAttribute("aria-busy", "false"); }
    }
  };
  // unticked at first: a fresh display has none enabled, and "No integration matches." hid them all
  const enabledOnly = h("input", { type: "checkbox", id: "integration-enabled", checked: false, onchange: load });
  const form = h("form", { class: "row", role: "search", onsubmit: (e) => { e.preventDefault(); load(); } },
    h("label", { for: "integration-q" }, "Find"), query, h("label", { class: "check", for: "integration-enabled" }, enabledOnly, " enabled only"),
    h("button", { type: "submit" }, "Search"));
  replace(holder, section("Integrations", form, list));
  await load();
}

const CATALOGS = {
  jokes: { filter: "setup", text: (r) => `${r.setup} — ${r.punchline}` },
  trivia: { filter: "question", text: (r) => r.question },
  "rss-articles": { filter: "title", text: (r) => r.title },
  photos: { filter: "alt_text", text: (r) => r.alt_text || r.media_blob_key },
  videos: { filter: "alt_text", text: (r) => r.alt_text || r.media_blob_key },
};

function catalogSection(api) {
  const kind = h("select", { id: "catalog-kind" }, Object.keys(CATALOGS).map((k) => h("option", { value: k }, k.replace("-", " "))));
  const text = h("input", { type: "search", id: "catalog-q" });
  const which = h("select", { id: "catalog-state" }, h("option", { value: "" }, "all"), h("option", { value: "false" }, "shown"), h("option", { value: "true" }, "suppressed"));
  const results = h("div", { "aria-live": "polite" });
  let offset = 0;
  const load = async () => {
    const spec = CATALOGS[kind.value];
    const params = new URLSearchParams({ limit: "25", offset: String(offset) });
    if (text.value.trim()) params.set(spec.filter, text.value.trim());
    if (which.value) params.set("suppressed", which.value);
    try {
      const page = await api.get(`/v1/catalog/${kind.value}?${params}`);
      const moderate = (row, suppressed) => async () => {
        try { await api.patch(`/v1/content/${kind.value}/${encodeURIComponent(row.id)}`, { suppressed }); notify(suppressed ? "Hidden from the display." : "Shown again."); load(); }
        catch (err) { notify(describeError(err), "error"); }
      };
      replace(results, h("p", {}, `${page.total} found.`), page.items.length ? table(["Item", "Source", "Actions"], page.items.map((row) => h("tr", {},
        h("td", {}, spec.text(row), row.suppressed ? h("span", { class: "badge warn" }, " hidden") : null),
        h("td", {}, row.integration_type || ""),
        h("td", { class: "actions" },
          "suppressed" in row ? (row.suppressed ? button("Restore", moderate(row, false)) : button("Suppress", moderate(row, true))) : null,
          button("Delete", async () => {
            if (!(await confirmDialog("Delete this item?", "It is removed from the display's catalog for good.", "Delete"))) return;
            try { await api.del(`/v1/content/${kind.value}/${encodeURIComponent(row.id)}`); notify("Deleted."); load(); }
            catch (err) { notify(describeError(err), "error"); }
          }, { kind: "danger" })))), "Catalog items") : null,
        h("div", { class: "actions" },
          offset > 0 ? button("Previous page", () => { offset = Math.max(0, offset - 25); load(); }) : null,
          offset + 25 < page.total ? button("Next page", () => { offset += 25; load(); }) : null));
    } catch (err) { replace(results, h("p", { class: "note error" }, describeError(err))); }
  };
  const form = h("form", { class: "row", role: "search", onsubmit: (e) => { e.preventDefault(); offset = 0; load(); } },
    h("label", { for: "catalog-kind" }, "Catalog"), kind, h("label", { for: "catalog-q" }, "Search"), text,
    h("label", { for: "catalog-state" }, "Show"), which, h("button", { type: "submit" }, "Search"));
  load();
  return section("Catalog", form, results);
}

function fileToBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",")[1]);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

const MIB = 1024 * 1024;

/** A category field chosen by name from the display's content categories (GET
 * /v1/curator/categories), as the joke and trivia interests are; `preferred` first when the
 * display has it. Without categories (an older display), the field stays as the display describes it. */
function categoryChoice(categories, look, preferred) {
  if (!categories.length) return { look, initial: preferred };
  const ids = categories.map((c) => c.id);
  return { look: { ...look, enum: ids, enumTitles: Object.fromEntries(categories.map((c) => [c.id, c.label || c.id])),
    description: "The display's content categories (Content page, Joke categories: make a new one)." },
  initial: ids.includes(preferred) ? preferred : ids[0] };
}

/** Photo upload: its accepted types and size, category and text limits are the display's (POST /v1/curator/manual/photos). */
function photoForm(api, body, categories) {
  const kinds = choices(property(body, "content_type"));
  const maxBytes = property(body, "bytes_base64")["x-max-bytes"];
  const names = Object.fromEntries(kinds.map(([type]) => [type, type.replace(/^image\//, "").toUpperCase()]));
  const sizeWords = maxBytes ? `, at most ${maxBytes % MIB === 0 ? `${maxBytes / MIB} MiB` : `${maxBytes} bytes`}` : "";
  const category = categoryChoice(categories, { title: "Category" }, "photos");
  const fields = schemaFields(formSchema(body, {
    category: category.look,
    alt_text: { title: "Description (alt text)" }, photographer_name: { title: "Photographer" } },
  { omit: ["bytes_base64", "content_type"] }), { category: category.initial }, { legend: "About the photo" });
  const photo = field("Photo", h("input", { type: "file", name: "photo", accept: kinds.map(([type]) => type).join(",") }),
    { hint: `${Object.values(names).join(", ")}${sizeWords}.` });
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "Upload a photo" }, photo.wrap, fields.element,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Upload photo")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    setFieldError(photo, []);
    const { value, ok } = fields.collect();
    const file = photo.input.files[0];
    if (!file) setFieldError(photo, "Choose a photo.");
    else if (kinds.length && !kinds.some(([type]) => type === file.type)) setFieldError(photo, `Choose a ${Object.values(names).join(", ")} file.`);
    else if (maxBytes && file.size > maxBytes) setFieldError(photo, `This photo is larger than the display takes${sizeWords}.`);
    const bad = form.querySelector("[aria-invalid=true]");
    if (!ok || bad) { if (bad) bad.focus(); return; }
    try {
      await api.post("/v1/curator/manual/photos", { ...value, content_type: file.type, bytes_base64: await fileToBase64(file) });
      form.reset();
      notify("Photo uploaded.");
    } catch (err) {
      if (err instanceof ApiError && err.details) { fields.showErrors(Object.fromEntries(Object.entries(err.details).map(([k, v]) => [`/${k}`, v]))); setFieldError(photo, err.details.bytes_base64 || err.details.content_type); }
      notify(describeError(err), "error");
    }
  });
  return form;
}

// Manual entries: the display's request bodies with titles laid over (and, for a calendar
// event, its instants entered as local date and time).
const MANUAL = [
  { one: "joke", path: "/v1/curator/manual/jokes",
    look: { category_id: { title: "Category" }, setup: { title: "Setup" }, punchline: { title: "Punchline" } } },
  { one: "trivia question", path: "/v1/curator/manual/trivia",
    look: { category_id: { title: "Category" }, question: { title: "Question" }, option_a: { title: "Answer A" },
      option_b: { title: "Answer B" }, option_c: { title: "Answer C" }, option_d: { title: "Answer D" },
      correct_option: { title: "Right answer" } } },
  { one: "calendar event", path: "/v1/curator/manual/calendar-events",
    look: { title: { title: "Title" }, start_ms: { type: "string", format: "date-time", title: "Starts" },
      end_ms: { type: "string", format: "date-time", title: "Ends" }, all_day: { title: "All day" },
      category_id: { title: "Category" }, location: { title: "Place" }, description: { title: "Description" } },
    omit: ["category_ids"],
    // datetime-local values are the browser's local time: sent as epoch milliseconds
    body: ({ start_ms, end_ms, ...rest }) => ({ ...rest, all_day: Boolean(rest.all_day),
      start_ms: new Date(start_ms).getTime(), end_ms: new Date(end_ms).getTime() }) },
];

function manualForm(api, spec, body, categories) {
  const category = categoryChoice(categories, spec.look.category_id, "general");
  const schema = formSchema(body, { ...spec.look, category_id: category.look }, { omit: spec.omit || [] });
  // a category is always sent (the display needs one of category_id / category_ids)
  if ("category_id" in schema.properties && !schema.required.includes("category_id")) schema.required.push("category_id");
  const fields = schemaFields(schema, { category_id: category.initial }, { legend: `A ${spec.one}` });
  const form = h("form", { class: "stack", novalidate: true, "aria-label": `Add a ${spec.one}` }, fields.element,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, `Add ${spec.one}`)));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const { value, ok } = fields.collect();
    if (!ok) return fields.focusFirstError();
    try { await api.post(spec.path, spec.body ? spec.body(value) : value); notify(`${spec.one.charAt(0).toUpperCase()}${spec.one.slice(1)} added.`); }
    catch (err) { showServerErrors(err, fields); }
  });
  return form;
}

async function manualSection(api, display, holder) {
  try {
    const [categories, photoBody, ...bodies] = await Promise.all([
      api.get("/v1/curator/categories").then((r) => r.items, () => []),
      requestSchema(display, "POST", "/v1/curator/manual/photos"),
      ...MANUAL.map((spec) => requestSchema(display, "POST", spec.path))]);
    replace(holder, section("Add your own content", h("div", { class: "grid2" }, photoForm(api, photoBody, categories),
      ...MANUAL.map((spec, i) => manualForm(api, spec, bodies[i], categories)))));
  } catch (err) { replace(holder, section("Add your own content", h("p", { class: "note error" }, describeError(err)))); }
}

export async function render(main, { display }) {
  if (!display) return needDisplay(main, "Content");
  const api = displayApi(display);
  const interestHolders = INTERESTS.map(() => h("div", {}));
  const integrations = h("div", {});
  const manual = h("div", {});
  replace(main, h("h1", {}, `Content of ${display.name}`),
    h("h2", { class: "group" }, "Interests"), h("div", { class: "grid-sections" }, interestHolders),
    integrations, catalogSection(api), manual);
  await Promise.all([manualSection(api, display, manual), ...INTERESTS.map((spec, i) => interestSection(api, display, spec, interestHolders[i])), integrationsSection(api, display, integrations)]);
}
