#!/usr/bin/env python3
"""A folder plugin's sidecar in Python, standard library only (docs/folder-plugins.md).

- serves ``GET /health`` and ``POST /collect`` on 127.0.0.1:$SVC_PLUGIN_PORT: the display's
  ``plugin_http`` collector stores the questions of ``trivia.json`` in its trivia catalog;
- every REFRESH_SECONDS, with its own key ($SVC_DISPLAY_API_KEY), writes the question of
  the moment to its marquee key-value ``ticker.marquee.<id>`` and sets the runtime signal
  ``<id>.count`` (the number of questions, expiring if the sidecar stops sending it);
- trusts the display's certificate from $SVC_DISPLAY_API_CA; stops cleanly on SIGTERM.
"""
import json
import os
import signal
import ssl
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PLUGIN_ID = os.environ["SVC_PLUGIN_ID"]
PORT = int(os.environ["SVC_PLUGIN_PORT"])
API_URL = os.environ["SVC_DISPLAY_API_URL"].rstrip("/")
API_KEY = os.environ["SVC_DISPLAY_API_KEY"]
API_CA = os.environ.get("SVC_DISPLAY_API_CA")
REFRESH_SECONDS = max(5, int(os.environ.get("REFRESH_SECONDS", "300")))
MAX_BODY = 1024 * 1024

with open(os.path.join(os.environ["SVC_PLUGIN_DIR"], "trivia.json"), encoding="utf-8") as handle:
    QUESTIONS = json.load(handle)

stopping = threading.Event()


def display_api(method, path, body):
    """One call to the display's REST API with this plugin's key; the answer's JSON."""
    context = ssl.create_default_context(cafile=API_CA) if API_URL.startswith("https:") else None
    request = urllib.request.Request(API_URL + path, data=json.dumps(body).encode(), method=method,
                                     headers={"Authorization": "Bearer " + API_KEY,
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, context=context, timeout=10) as answer:
        return json.load(answer)


def question_of_the_moment():
    return "Trivia: " + QUESTIONS[int(time.time() // REFRESH_SECONDS) % len(QUESTIONS)]["question"]


def catalog_item(question):
    """One ``trivia`` item of the plugin_http answer (docs/folder-plugins.md, the protocol)."""
    a, b, c, d = question["options"]
    return {"kind": "trivia", "id": question["id"], "question": question["question"], "option_a": a,
            "option_b": b, "option_c": c, "option_d": d, "correct_option": question["correct"],
            "category_id": "computing"}


def announce():
    """The marquee text and the signal, now and every REFRESH_SECONDS until SIGTERM."""
    while not stopping.is_set():
        try:
            display_api("PUT", "/v1/config/key-values",
                        {"key": "ticker.marquee." + PLUGIN_ID, "value": question_of_the_moment()})
            display_api("PUT", "/v1/runtime/signals/%s.count" % PLUGIN_ID,
                        {"value": len(QUESTIONS), "ttl_seconds": 2 * REFRESH_SECONDS})
            print("announced the question of the moment and %d questions" % len(QUESTIONS))
        except (OSError, urllib.error.URLError, ValueError) as exc:
            print("the display did not take the announcement: %s" % exc)
        stopping.wait(REFRESH_SECONDS)


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self.answer(200, {"status": "ok", "questions": len(QUESTIONS)})
        else:
            self.answer(404, {"code": "not_found", "message": "no such path"})

    def do_POST(self):
        if self.path != "/collect":
            self.answer(404, {"code": "not_found", "message": "no such path"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.answer(413, {"code": "payload_too_large", "message": "at most 1 MiB"})
            return
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self.answer(400, {"code": "invalid_json", "message": "the body is not JSON"})
            return
        print("collect for integration %s" % request.get("integration_id"))
        self.answer(200, {"items": [catalog_item(q) for q in QUESTIONS], "ticker": question_of_the_moment()})

    def log_message(self, fmt, *args):  # the display logs each printed line as "plugin <id>: ..."
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)

    def stop(signum, frame):
        stopping.set()
        threading.Thread(target=server.shutdown).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threading.Thread(target=announce, daemon=True).start()
    print("serving on 127.0.0.1:%d with %d questions" % (PORT, len(QUESTIONS)))
    server.serve_forever()
    server.server_close()
    print("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
