// Live preview: the display's JPEG WebSocket through the controller's proxy, drawn on a
// canvas, with back/forward buttons for the slides and the ticker.
import { displayApi, displaySocket, describeError } from "../api.js";
import { h, replace, button, notify } from "../dom.js";
import { needDisplay, section } from "./common.js";

function socketUrl(display, ticket) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams({ ticket, ...displaySocket(display).query });
  return `${scheme}//${location.host}/bff/v1/proxy/v1/display/live-preview/ws?${query}`;
}

export async function render(main, { display }) {
  if (!display) return needDisplay(main, "Live preview");
  const api = displayApi(display);
  const info = await api.get("/v1/display/live-preview");
  if (!main.isConnected) return null; // the person has moved on: start nothing
  const canvas = h("canvas", { id: "preview-canvas", width: String(info.width || 720), height: String(Math.round((info.width || 720) * 9 / 16)),
    role: "img", "aria-label": `Live picture of ${display.name}` });
  const state = h("p", { class: "hint", id: "preview-state", "aria-live": "polite" }, "Not started.");
  let socket = null;
  let frames = 0;
  let stopped = false;

  const stop = () => {
    stopped = true;
    if (socket) { socket.close(); socket = null; }
  };

  const start = async () => {
    stop();
    stopped = false;
    frames = 0;
    state.textContent = "Connecting…";
    let ticket;
    try {
      ticket = (await api.post("/v1/display/live-preview/session")).ticket;
    } catch (err) { state.textContent = describeError(err); return; }
    const ws = new WebSocket(socketUrl(display, ticket), displaySocket(display).protocols);
    socket = ws;
    ws.binaryType = "arraybuffer";
    const ctx = canvas.getContext("2d");
    let drawing = false;
    ws.onopen = () => { state.textContent = "Connected; waiting for the first picture…"; };
    ws.onmessage = async (event) => {
      if (drawing || typeof event.data === "string") return; // skip frames while one is still decoding
      const view = new DataView(event.data);
      const length = view.getUint32(0);
      const jpeg = new Blob([new Uint8Array(event.data, 4, Math.min(length, event.data.byteLength - 4))], { type: "image/jpeg" });
      drawing = true;
      try {
        const bitmap = await createImageBitmap(jpeg);
        if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) { canvas.width = bitmap.width; canvas.height = bitmap.height; }
        ctx.drawImage(bitmap, 0, 0);
        bitmap.close();
        frames += 1;
        canvas.dataset.frames = String(frames);
        if (frames === 1 || frames % 10 === 0) state.textContent = `Live (${frames === 1 ? "first picture" : `${frames} pictures`} received).`;
      } catch { /* a broken frame: wait for the next */ } finally { drawing = false; }
    };
    ws.onclose = (event) => {
      if (ws !== socket && !stopped) return; // an earlier socket, replaced by a restart
      if (stopped) { state.textContent = "Stopped."; return; }
      state.textContent = frames ? "The preview stopped (the connection closed)."
        : `The display refused the preview (code ${event.code}). If the key was pasted rather than paired here, the display may not allow this controller's address (origin): pair it with a code, or add ${location.origin} to SVC_DISPLAY_HTTP_CORS_ORIGINS.`;
    };
  };

  const nav = (surface, direction) => button(`${surface === "screen" ? "Slide" : "Ticker"} ${direction === "back" ? "back" : "forward"}`,
    async () => {
      try { await api.post("/v1/display/navigation", { surface, direction }); notify(`${surface === "screen" ? "Slide" : "Ticker"} moved ${direction}.`); }
      catch (err) { notify(describeError(err), "error"); }
    });

  const body = [];
  if (!info.configured) body.push(h("p", { class: "note warn" }, "This display runs without a screen (headless): there is nothing to preview."));
  else if (!info.enabled) body.push(h("p", { class: "note warn" }, "Live preview is switched off on this display (SVC_DISPLAY_LIVE_PREVIEW_ENABLED=0)."));
  replace(main, h("h1", {}, `Live preview of ${display.name}`), ...body,
    section("On screen now", h("div", { class: "preview" }, canvas), state,
      h("div", { class: "actions" }, button("Start", start, { kind: "primary" }), button("Stop", stop, { kind: "secondary" }))),
    section("Navigate", h("div", { class: "actions" }, nav("screen", "back"), nav("screen", "forward"), nav("ticker", "back"), nav("ticker", "forward"))));
  if (info.configured && info.enabled) start();
  return stop;
}
