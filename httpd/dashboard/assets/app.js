// app.js: the poll loop. Every 2 s it reads what each section shows and
// updates the page in place; a 401 or 403 on any read shows the token
// form in place of the data.
"use strict";
(function (QD) {
  const $ = QD.$, POLL_MS = 2000;
  let timer = null, busy = false, authShown = false, selected = "";

  // selectQueue shows the partitions of queue ("" hides them).
  QD.selectQueue = (queue) => { selected = queue; QD.renderQueueDetail(selected, null); poll(); };

  function showAuth(err) {
    authShown = true;
    $("data").hidden = true;
    $("auth-form").hidden = false;
    $("auth-reason").textContent = (QD.token() ? "The token was refused: " : "No token given: ") + err.status + " on " + err.path + ": " + err.message;
    $("last-update").textContent = "needs a token";
  }

  function showErrors(errs) {
    const el = $("errors");
    el.hidden = errs.length === 0;
    el.textContent = errs.join(" | ");
  }

  // optional reads a route that a broker may not serve (404 or 501: null).
  async function optional(path) {
    try {
      return await QD.get(path);
    } catch (e) {
      if (e instanceof QD.HTTPError && (e.status === 404 || e.status === 501)) return null;
      throw e;
    }
  }

  async function poll() {
    if (busy) return;
    busy = true;
    const now = Date.now();
    const dlqQueue = $("dlq-queue").value.trim();
    const reads = {
      health: QD.get("/health"),
      status: QD.get("/status"),
      members: optional("/api/v1/raft/members"),
      queues: QD.get("/api/v1/status/queues?limit=1000"),
      groups: optional("/api/v1/consumer-groups"),
      dlq: optional("/api/v1/dlq?limit=100" + (dlqQueue ? "&queue=" + encodeURIComponent(dlqQueue) : "")),
      kv: optional("/api/v1/resources/kv/namespaces"),
      metrics: QD.get("/metrics"),
    };
    const shownQueue = selected;
    if (shownQueue) reads.detail = optional("/api/v1/status/queues/" + encodeURIComponent(shownQueue));
    const names = Object.keys(reads);
    const settled = await Promise.allSettled(names.map((n) => reads[n]));
    busy = false;
    const got = {}, errs = [];
    let auth = null;
    settled.forEach((r, i) => {
      if (r.status === "fulfilled") got[names[i]] = r.value;
      else if (r.reason instanceof QD.AuthError && (r.reason.status === 401 || names[i] === "queues")) auth = auth || r.reason;
      else if (r.reason instanceof QD.AuthError) errs.push(names[i] + ": this token does not reach " + r.reason.path + " (" + r.reason.status + ")");
      else errs.push(names[i] + ": " + r.reason.message);
    });
    if (auth) {
      showAuth(auth);
      return;
    }
    authShown = false;
    $("auth-form").hidden = true;
    $("data").hidden = false;
    const render = [
      ["cluster", () => QD.renderCluster(got.members, got.health)],
      ["queues", () => QD.renderQueues(got.queues, now)],
      ["partitions", () => shownQueue === selected && QD.renderQueueDetail(selected, got.detail)],
      ["groups", () => QD.renderGroups(got.groups)],
      ["dlq", () => QD.renderDLQ(got.dlq, replay)],
      ["kv", () => QD.renderKV(got.kv)],
      ["sink", () => "status" in got && QD.renderSink(got.status)],
      ["rates", () => "metrics" in got && QD.addSample(got.metrics, now)],
    ];
    for (const [name, f] of render) {
      try { f(); } catch (e) { errs.push(name + ": " + e.message); }
    }
    showErrors(errs);
    $("last-update").textContent = "updated " + new Date(now).toLocaleTimeString();
    $("last-update").dataset.polls = String(Number($("last-update").dataset.polls || 0) + 1);
  }

  async function replay(m, button) {
    button.disabled = true;
    button.textContent = "replaying…";
    try {
      await QD.post("/api/v1/dlq/" + encodeURIComponent(m.id) + "/replay");
      button.textContent = "replayed";
    } catch (e) {
      if (e instanceof QD.AuthError) return showAuth(e);
      button.disabled = false;
      button.textContent = "replay";
      showErrors(["replay " + m.id + ": " + e.message]);
      return;
    }
    poll();
  }

  $("auth-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    QD.setCredentials($("token-input").value.trim(), $("tenant-input").value.trim());
    $("token-input").value = "";
    poll();
  });
  $("token-clear").addEventListener("click", () => {
    QD.setCredentials("", "");
    poll();
  });
  $("token-change").addEventListener("click", () => {
    if (authShown) return;
    $("auth-form").hidden = !$("auth-form").hidden;
    $("auth-reason").textContent = "Give another token, or forget this one.";
  });
  $("tenant-input").value = QD.tenant();
  $("queue-detail-close").addEventListener("click", () => QD.selectQueue(""));

  poll();
  timer = setInterval(poll, POLL_MS);
  QD.pollNow = poll;
  QD.stop = () => clearInterval(timer);
})(window.QD);
