#!/usr/bin/env python3
# The demo profile's service: answers GET / with the configured greeting,
# re-reads its config on SIGHUP (a reload) and counts reloads, so tests can
# tell a reload from a restart. Copied byte for byte (source =), not rendered.
import http.server
import json
import os
import signal
import sys

CONF = sys.argv[1]
state = {"reloads": 0, "conf": None}


def load():
    with open(CONF) as f:
        state["conf"] = json.load(f)


def on_hup(signum, frame):
    load()
    state["reloads"] += 1


load()
signal.signal(signal.SIGHUP, on_hup)
with open(os.path.join(state["conf"]["state_dir"], "starts"), "a") as f:
    f.write("%d\n" % os.getpid())


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        c = state["conf"]
        if self.path == "/reloads":
            body = "%d\n" % state["reloads"]
        elif self.path == "/health":
            body = "ok\n"
        else:
            body = c["greeting"] + "\n"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Demo-Greeting", c["greeting"])
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", state["conf"]["port"]), Handler).serve_forever()
