// Entry point: sign-in check, the current-display picker and a hash router.
import { bff, setSignedOutHandler, describeError } from "./api.js";
import { h, replace, clearNotice } from "./dom.js";
import { listDisplays, currentDisplay, setCurrent, setUser } from "./store.js";
import * as displays from "./pages/displays.js";
import * as program from "./pages/program.js";
import * as alerts from "./pages/alerts.js";
import * as preview from "./pages/preview.js";
import * as settings from "./pages/settings.js";
import * as content from "./pages/content.js";
import * as backups from "./pages/backups.js";
import * as signin from "./pages/signin.js";

const PAGES = { displays, program, alerts, preview, settings, content, backups };
const TITLES = { displays: "Displays", program: "Program", alerts: "Alerts", preview: "Live preview",
  settings: "Settings", content: "Content", backups: "Backups" };

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const current = document.getElementById("current");
let session = null;
let cleanup = null;

// A controller 401 later on (the session expired): back to the sign-in page. While the
// session is being loaded (session === null) loadSession handles the answer itself.
setSignedOutHandler(() => {
  if (session === null) return;
  session = { authEnabled: true, username: null };
  route();
});

function renderPicker() {
  const list = listDisplays();
  const cur = currentDisplay();
  const children = [];
  if (list.length) {
    const select = h("select", { id: "display-picker", onchange: (e) => { setCurrent(e.target.value); route(); } },
      list.map((d) => h("option", { value: d.id, selected: cur && d.id === cur.id }, d.name)));
    children.push(h("label", { for: "display-picker" }, "Display"), select);
  }
  if (session && session.username) {
    children.push(h("span", { class: "user" }, session.username),
      h("button", { type: "button", class: "secondary small", onclick: signOut }, "Sign out"));
  }
  replace(current, children);
}

async function signOut() {
  try { await bff.post("/auth/logout"); } catch { /* signed out either way */ }
  session = { authEnabled: true, username: null };
  route();
}

async function loadSession() {
  try {
    session = await bff.get("/auth/session");
  } catch (err) {
    session = err.status === 401 ? { authEnabled: true, username: null } : { authEnabled: false, username: null, error: err };
  }
  setUser(session.username);
}

export async function route({ keepNotice = false } = {}) {
  if (cleanup) { try { cleanup(); } catch { /* page already gone */ } cleanup = null; }
  if (!keepNotice) clearNotice();
  if (session === null) await loadSession();
  const signedOut = session.authEnabled && !session.username;
  nav.hidden = signedOut;
  if (signedOut) {
    replace(current);
    document.title = "Sign in · svc-controller";
    const view = h("div", { class: "view" });
    replace(main, view);
    cleanup = signin.render(view, { onSignedIn: async () => { session = null; await loadSession(); location.hash = "#/displays"; route(); } });
    return;
  }
  renderPicker();
  const name = (location.hash.replace(/^#\/?/, "").split("/")[0]) || "displays";
  const page = PAGES[name] || displays;
  const key = PAGES[name] ? name : "displays";
  for (const a of nav.querySelectorAll("a")) {
    if (a.getAttribute("href") === `#/${key}`) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  document.title = `${TITLES[key]} · svc-controller`;
  // Each visit renders into a fresh container: an answer that arrives after the person has
  // moved on lands in a detached element instead of overwriting the page now shown.
  // aria-busy until every section has its answer: assistive technology waits for the page to
  // settle before reading it, and so can a test (sections fill in and move what is below them).
  const view = h("div", { class: "view", "aria-busy": "true" }, h("p", {}, "Loading…"));
  replace(main, view);
  try {
    cleanup = await page.render(view, { display: currentDisplay(), refresh: () => route({ keepNotice: true }) }) || null;
  } catch (err) {
    replace(view, h("h1", {}, TITLES[key]), h("p", { class: "note error", role: "alert" }, describeError(err)));
  } finally {
    view.setAttribute("aria-busy", "false");
  }
}

window.addEventListener("hashchange", () => { route(); main.focus({ preventScroll: true }); });
// The skip link moves the focus only: its "#main" must not become a route.
document.querySelector(".skip").addEventListener("click", (event) => { event.preventDefault(); main.focus(); });
route();
