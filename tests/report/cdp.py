"""A headless Chromium driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: NUL-terminated JSON on fds 3 and 4), with only the
Python standard library: load a page, record every request it makes, read
its console, evaluate script in it and take a full-page screenshot."""

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, binary, timeout=60):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="xtune_chromium_")
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        args = [binary, "--headless", "--remote-debugging-pipe", "--no-first-run",
                "--disable-gpu", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-default-apps", "--hide-scrollbars",
                "--user-data-dir=" + self.profile, "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses root otherwise

        def fds():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        # pass_fds keeps 3 and 4 open in the child after preexec_fn set them.
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buf = b""
        self._next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe (exit %s)" % self.proc.poll())
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method, params=None, session=True):
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, method):
        deadline = time.monotonic() + self.timeout
        for m in self.events:
            if m.get("method") == method:
                return m
        while True:
            m = self._read_message(deadline)
            self.events.append(m)
            if m.get("method") == method:
                return m

    def open(self, url, width=1400, height=1000):
        """Opens `url` in a new tab and waits for its load event."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Network", "Page", "Runtime", "Log"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.events = []
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        # Let late requests (lazy images, fonts) start.
        self.evaluate("new Promise(r => setTimeout(r, 300))", await_promise=True)

    def requests(self):
        """Every URL the page asked for since open(), the document included."""
        return [m["params"]["request"]["url"] for m in self.events
                if m.get("method") == "Network.requestWillBeSent"]

    def console(self):
        """Console and log messages (CSP violations among them)."""
        out = []
        for m in self.events:
            if m.get("method") == "Log.entryAdded":
                out.append(m["params"]["entry"]["text"])
            elif m.get("method") == "Runtime.consoleAPICalled":
                out.append(" ".join(str(a.get("value")) for a in m["params"]["args"]))
        return out

    def evaluate(self, expression, await_promise=False):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            raise RuntimeError("script failed: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def screenshot(self):
        """The whole page as PNG bytes."""
        r = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        return base64.b64decode(r["data"])
