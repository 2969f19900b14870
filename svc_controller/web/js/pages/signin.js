// The sign-in page, shown when the controller's auth is on and no session is open.
import { bff, describeError } from "../api.js";
import { h, replace, field } from "../dom.js";

export function render(main, { onSignedIn }) {
  const user = field("Username", h("input", { type: "text", name: "username", autocomplete: "username", required: true }));
  const pass = field("Password", h("input", { type: "password", name: "password", autocomplete: "current-password", required: true }));
  const error = h("p", { class: "note error", role: "alert", hidden: true });
  const form = h("form", { class: "stack signin", "aria-label": "Sign in" }, user.wrap, pass.wrap, error,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Sign in")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    try {
      await bff.post("/auth/login", { json: { username: user.input.value, password: pass.input.value } });
      onSignedIn();
    } catch (err) {
      error.hidden = false;
      error.textContent = describeError(err);
      pass.input.value = "";
      pass.input.focus();
    }
  });
  replace(main, h("h1", {}, "Sign in"), h("section", { class: "card narrow-card" }, form));
  user.input.focus();
}
