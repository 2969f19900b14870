// Settings: theme picker with previews, time and date formats, timezone, temperature unit.
import { displayApi, describeError, ApiError } from "../api.js";
import { h, replace, field, setFieldError, notify, button, confirmDialog } from "../dom.js";
import { needDisplay, section } from "./common.js";
import { powerSection } from "./power.js";
import { check } from "../schemaform.js";
import { requestSchema, property, inputLimits, choices } from "../contract.js";

function gradient(stops) {
  const list = (stops || []).filter((s) => /^#[0-9a-fA-F]{3,8}$/.test(s));
  return list.length > 1 ? `linear-gradient(135deg, ${list.join(", ")})` : list[0] || "#888";
}

function themePreview(theme) {
  const p = theme.preview || {};
  // A small picture of the display in the theme's own colours (its "Aa" is sample text, not
  // the app's: the contrast check of the tests leaves it out); the theme's name labels it.
  const screen = h("span", { class: "theme-screen", "aria-hidden": "true", dataset: { contrast: "picture" } });
  screen.style.background = gradient(p.display);
  const primary = h("span", { class: "theme-box" }, "Aa");
  primary.style.background = gradient((p.primaryContainer || []).slice(1));
  primary.style.color = (p.primaryContainer || [])[0] || "#fff";
  const secondary = h("span", { class: "theme-box" }, "Aa");
  secondary.style.background = gradient((p.secondaryContainer || []).slice(1));
  secondary.style.color = (p.secondaryContainer || [])[0] || "#fff";
  const accents = (p.accents || []).map((c) => { const dot = h("span", { class: "theme-dot" }); dot.style.background = c; return dot; });
  screen.append(primary, secondary, h("span", { class: "theme-accents" }, accents));
  return screen;
}

/** A form for a custom theme: colour pickers with a live preview (POST /v1/display/themes). */
function themeEditor(api, themeBody, done) {
  const picker = (label, value) => h("label", { class: "swatch" }, h("input", { type: "color", value }), " ", label);
  // defaults that pass the display's contrast rules (docs/display.md, "Colour"); how many
  // colours each group takes is the display's (its preview schema): a group is cut or padded
  const defaults = {
    display: [["Background top", "#102040"], ["Background bottom", "#1b4a6b"]],
    primaryContainer: [["Panel text", "#ffffff"], ["Panel", "#b4452c"]],
    secondaryContainer: [["Second panel text", "#102040"], ["Second panel", "#f4a261"]],
    accents: [["Accent 1", "#e9c46a"], ["Accent 2", "#5fd3c4"], ["Accent 3", "#ffa88f"], ["Accent 4", "#8ab17d"]],
  };
  const shape = property(themeBody, "preview").properties || {};
  const groups = Object.fromEntries(Object.entries(defaults).map(([key, list]) => {
    const { minItems = 0, maxItems = Infinity } = shape[key] || {};
    const count = Math.min(Math.max(list.length, minItems), maxItems);
    return [key, Array.from({ length: count }, (_, i) => (list[i] ? picker(...list[i])
      : picker(`${list[list.length - 1][0]} ${i + 1}`, list[list.length - 1][1])))];
  }));
  const labelSchema = property(themeBody, "label"); // the display's limits on a theme's name
  const label = field("Theme name", h("input", { type: "text", name: "label", ...inputLimits(labelSchema) }));
  const holder = h("div", { class: "theme-live", "aria-hidden": "true" });
  const preview = () => Object.fromEntries(Object.entries(groups).map(([k, list]) => [k, list.map((l) => l.querySelector("input").value)]));
  const redraw = () => replace(holder, themePreview({ preview: preview() }));
  Object.values(groups).flat().forEach((l) => l.querySelector("input").addEventListener("input", redraw));
  redraw();
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "New theme" }, label.wrap,
    h("div", { class: "row" }, Object.entries(groups).map(([k, list]) => h("fieldset", { class: "choices" },
      h("legend", {}, { display: "Screen", primaryContainer: "Panel", secondaryContainer: "Second panel", accents: "Accents" }[k]), list))),
    holder, h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Create theme")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    setFieldError(label, []);
    const problems = label.input.value.trim() ? check(labelSchema, label.input.value.trim(), true) : ["Give the theme a name."];
    if (problems.length) { setFieldError(label, problems); label.input.focus(); return; }
    let theme;
    try {
      theme = await api.post("/v1/display/themes", { label: label.input.value.trim(), preview: preview() });
    } catch (err) {
      if (err instanceof ApiError && err.details && err.details.label) setFieldError(label, err.details.label);
      notify(describeError(err), "error");
      return;
    }
    await done(); // said once the page shows the new theme
    notify(`Theme ${theme.label || label.input.value.trim()} created.`);
  });
  return form;
}

const zones = () => (typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : []);

export async function render(main, { display }) {
  if (!display) return needDisplay(main, "Settings");
  const api = displayApi(display);
  const [settings, themes, body, themeBody] = await Promise.all([api.get("/v1/display/settings"), api.get("/v1/display/themes"),
    requestSchema(display, "PUT", "/v1/display/settings"), requestSchema(display, "POST", "/v1/display/themes")]);
  const themeChoices = h("fieldset", { class: "themes" }, h("legend", {}, "Theme"),
    themes.items.map((t) => h("div", { class: "theme-cell" }, h("label", { class: "theme" },
      h("input", { type: "radio", name: "display_theme_id", value: t.id, checked: t.id === settings.display_theme_id }),
      themePreview(t), h("span", { class: "theme-label" }, t.label)),
      t.builtin === false ? button(`Delete theme ${t.label}`, async () => {
        if (!(await confirmDialog(`Delete the theme ${t.label}?`, "A display using it goes back to the default theme.", "Delete"))) return;
        try { await api.del(`/v1/display/themes/${encodeURIComponent(t.id)}`); await rerender(); notify(`Theme ${t.label} deleted.`); }
        catch (err) { notify(describeError(err), "error"); }
      }, { kind: "danger small" }) : null)));
  // the choices and ranges are the display's (PUT /v1/display/settings); the words are ours
  const select = (name, label, words) => {
    const f = field(label, h("select", { name }, choices(property(body, name), words).map(([v, text]) => h("option", { value: v }, text))), { name });
    f.input.value = settings[name];
    return f;
  };
  const time = select("controller_time_format", "Time format", { "24h": "24-hour (14:30)", "12h": "12-hour (2:30 PM)" });
  const date = select("controller_date_order", "Date order", { dmy: "day month year", mdy: "month day year", ymd: "year month day" });
  const unit = select("display_weather_temperature_unit", "Temperature unit", { c: "Celsius (°C)", f: "Fahrenheit (°F)" });
  const zone = field("Timezone", h("input", { type: "text", name: "display_timezone", list: "zones", autocomplete: "off",
    ...inputLimits(property(body, "display_timezone")),
    value: settings.display_timezone || "", placeholder: "Europe/Paris" }), { hint: "An IANA zone; empty uses the display's default.", name: "display_timezone" });
  const scale = (name, label) => field(label, h("input", { type: "number", name, step: "0.05", ...inputLimits(property(body, name)),
    value: String(settings[name]) }), { name });
  const scaleScreen = scale("display_text_scale_screen", "Text size on slides");
  const scaleTicker = scale("display_text_scale_ticker", "Text size in the ticker");
  const overscan = field("Overscan (%)", h("input", { type: "number", name: "display_overscan_percent", step: "1",
    ...inputLimits(property(body, "display_overscan_percent")), value: String(settings.display_overscan_percent ?? 0) }),
  { hint: "A TV that crops the picture's edges (HDMI overscan): 2 to 5 % draws everything that much smaller.",
    name: "display_overscan_percent" });
  const all = { controller_time_format: time, controller_date_order: date, display_weather_temperature_unit: unit,
    display_timezone: zone, display_text_scale_screen: scaleScreen, display_text_scale_ticker: scaleTicker,
    display_overscan_percent: overscan };
  const themeError = h("p", { class: "field-error", hidden: true });
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "Display settings" },
    themeChoices, themeError,
    h("div", { class: "row" }, time.wrap, date.wrap, unit.wrap), zone.wrap,
    h("datalist", { id: "zones" }, zones().map((z) => h("option", { value: z }))),
    h("div", { class: "row" }, scaleScreen.wrap, scaleTicker.wrap, overscan.wrap),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Save settings")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    Object.values(all).forEach((f) => setFieldError(f, []));
    themeError.hidden = true;
    const changes = {};
    let bad = null;
    const theme = form.querySelector("input[name=display_theme_id]:checked");
    if (theme && theme.value !== settings.display_theme_id) changes.display_theme_id = theme.value;
    for (const [name, f] of Object.entries(all)) {
      let value = f.input.value.trim();
      if (name.startsWith("display_text_scale") || name === "display_overscan_percent") value = value === "" ? NaN : Number(value);
      if (value !== settings[name]) {
        const problems = check(property(body, name), value, false);
        if (problems.length) { setFieldError(f, problems); bad = bad || f; }
        changes[name] = value;
      }
    }
    if (bad) { bad.input.focus(); return; }
    if (!Object.keys(changes).length) { notify("Nothing changed."); return; }
    try {
      Object.assign(settings, await api.put("/v1/display/settings", changes));
      notify("Settings saved.");
    } catch (err) {
      if (err instanceof ApiError && err.details) {
        for (const [k, v] of Object.entries(err.details)) if (all[k]) setFieldError(all[k], v);
      }
      if (err instanceof ApiError && err.code === "unknown_display_theme_id") { themeError.hidden = false; themeError.textContent = err.message; }
      notify(describeError(err), "error");
    }
  });
  const rerender = () => render(main, { display });
  replace(main, h("h1", {}, `Settings of ${display.name}`), section("Look and formats", form),
    section("Your own theme", h("details", {}, h("summary", {}, "Make a theme"), themeEditor(api, themeBody, rerender))),
    await powerSection(display, rerender));
}
