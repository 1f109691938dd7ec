// views.js: renders each section from the API's answers, updating the
// rows in place (keyed by queue, group, letter id, namespace) so that the
// page changes without a reload and a click is never lost to a rebuild.
"use strict";
window.QD = window.QD || {};
(function (QD) {
  const $ = (id) => document.getElementById(id);
  const fmt = (v) => (v === null || v === undefined || v === "") ? "—" : String(v);
  QD.$ = $;

  // syncRows makes tbody hold one row per item, keyed by key(item); cols
  // are [field, value(item), className?]. extra(tr, item, fresh) may add
  // to a row (a button). Rows of keys no longer present are removed.
  QD.syncRows = function (tbody, testid, keyAttr, items, key, cols, extra) {
    const seen = new Set();
    const existing = new Map();
    for (const tr of Array.from(tbody.rows)) existing.set(tr.dataset.key, tr);
    let prev = null;
    for (const it of items) {
      const k = String(key(it));
      seen.add(k);
      let tr = existing.get(k), fresh = false;
      if (!tr) {
        fresh = true;
        tr = document.createElement("tr");
        tr.dataset.key = k;
        tr.dataset.testid = testid;
        tr.setAttribute("data-testid", testid);
        tr.setAttribute("data-" + keyAttr, k);
        for (const c of cols) {
          const td = document.createElement("td");
          td.dataset.field = c[0];
          if (c[2]) td.className = c[2];
          tr.appendChild(td);
        }
      }
      cols.forEach((c, i) => {
        const v = fmt(c[1](it));
        if (tr.cells[i].textContent !== v) tr.cells[i].textContent = v;
      });
      if (extra) extra(tr, it, fresh);
      const want = prev ? prev.nextSibling : tbody.firstChild;
      if (want !== tr) tbody.insertBefore(tr, want);
      prev = tr;
    }
    for (const [k, tr] of existing) if (!seen.has(k)) tr.remove();
  };

  // setDL fills a <dl> with [term, value, testid, className?] pairs.
  QD.setDL = function (dl, pairs) {
    dl.textContent = "";
    for (const [t, v, testid, cls] of pairs) {
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = t;
      dd.textContent = fmt(v);
      dd.setAttribute("data-testid", testid);
      if (cls) dd.className = cls;
      dl.append(dt, dd);
    }
  };

  // cluster: GET /api/v1/raft/members, and the raft and disk blocks of
  // /health (a node without the membership routes shows a note).
  QD.renderCluster = function (members, health) {
    const raft = (health && health.raft) || {};
    const disk = (health && health.disk) || {};
    const tbody = $("members-table").tBodies[0];
    if (members) {
      $("members-note").textContent = members.members.length + " members; leader " + (members.leader || "none known") +
        (members.removed && members.removed.length ? "; removed " + members.removed.join(", ") : "");
      $("node-id").textContent = "node " + members.node;
      QD.syncRows(tbody, "member-row", "node", members.members, (m) => m.nodeId, [
        ["nodeId", (m) => m.nodeId],
        ["address", (m) => m.address],
        ["role", (m) => m.nodeId === members.leader ? "leader" : "follower"],
        ["here", (m) => m.nodeId === members.node ? "this node" : ""],
      ], (tr, m) => {
        tr.cells[2].className = m.nodeId === members.leader ? "leader" : "";
        tr.dataset.leader = String(m.nodeId === members.leader);
        tr.dataset.self = String(m.nodeId === members.node);
      });
    } else {
      $("members-note").textContent = "this node serves no membership route";
      tbody.textContent = "";
    }
    QD.setDL($("raft-status"), [
      ["status", health && health.status, "raft-health", health && health.status === "healthy" ? "good" : "bad"],
      ["role", raft.role, "raft-role"],
      ["leader", raft.leader, "raft-leader"],
      ["applied", raft.applied, "raft-applied"],
      ["lag (ms)", raft.lag, "raft-lag"],
      ["storage ready", raft.storageReady, "raft-storage-ready"],
    ]);
    QD.setDL($("disk"), [
      ["used %", disk.usedPct, "disk-used-pct"],
      ["full", disk.full, "disk-full", disk.full ? "bad" : ""],
      ["full nodes", (disk.fullNodes || []).join(", ") || "none", "disk-full-nodes"],
      ["refusing writes", disk.refusingWrites, "disk-refusing", disk.refusingWrites ? "bad" : ""],
      ["high / low %", disk.highPct !== undefined ? disk.highPct + " / " + disk.lowPct : "", "disk-marks"],
      ["error", disk.error, "disk-error"],
    ]);
  };

  // queues: GET /api/v1/status/queues; new/s is the change of each
  // queue's messages.total between two polls.
  const lastTotals = new Map();
  QD.renderQueues = function (st, now) {
    const qs = (st && st.queues) || [];
    const rate = new Map();
    for (const q of qs) {
      const p = lastTotals.get(q.name);
      if (p && now > p.at) rate.set(q.name, Math.max(0, (q.messages.total - p.total) * 1000 / (now - p.at)).toFixed(1));
      lastTotals.set(q.name, { total: q.messages.total, at: now });
    }
    QD.syncRows($("queues-table").tBodies[0], "queue-row", "queue", qs, (q) => q.name, [
      ["name", (q) => q.name],
      ["namespace", (q) => q.namespace],
      ["partitions", (q) => q.partitions, "num"],
      ["depth", (q) => q.messages.pending, "num"],
      ["processing", (q) => q.messages.processing, "num"],
      ["completed", (q) => q.messages.completed, "num"],
      ["total", (q) => q.messages.total, "num"],
      ["rate", (q) => rate.get(q.name), "num"],
      ["lastWriteAt", (q) => q.lastWriteAt],
    ], (tr, q, fresh) => {
      if (fresh) tr.addEventListener("click", () => QD.selectQueue(q.name));
    });
    $("queues-empty").hidden = qs.length > 0;
  };

  // queue detail: GET /api/v1/status/queues/{queue}, the selected queue's
  // partitions (null: none selected, or it is gone).
  QD.renderQueueDetail = function (name, d) {
    const box = $("queue-detail");
    box.hidden = !name;
    $("queue-detail-name").textContent = name || "";
    const parts = (d && d.partitions) || [];
    QD.syncRows($("partitions-table").tBodies[0], "partition-row", "partition", parts, (p) => p.name, [
      ["name", (p) => p.name],
      ["partitionId", (p) => p.partitionId],
      ["logStart", (p) => p.logStart, "num"],
      ["lastOffset", (p) => p.lastOffset, "num"],
      ["depth", (p) => p.messages.pending, "num"],
      ["processing", (p) => p.messages.processing, "num"],
      ["lastWriteAt", (p) => p.lastWriteAt],
    ]);
  };

  // groups: GET /api/v1/consumer-groups.
  QD.renderGroups = function (gs) {
    const list = (gs && gs.consumerGroups) || [];
    QD.syncRows($("groups-table").tBodies[0], "group-row", "group", list, (g) => g.name, [
      ["name", (g) => g.name],
      ["lag", (g) => g.lag, "num"],
      ["queues", (g) => g.queues.map((q) => q.queue + " (" + q.lag + ", " + q.partitions + " partitions)").join("; ")],
    ]);
    $("groups-empty").hidden = list.length > 0;
  };

  // dlq: GET /api/v1/dlq?queue=; each row's button replays its letter.
  QD.renderDLQ = function (d, onReplay) {
    const list = (d && d.messages) || [];
    $("dlq-total").textContent = d ? d.total + " letters" : "";
    QD.syncRows($("dlq-table").tBodies[0], "dlq-row", "id", list, (m) => m.id, [
      ["id", (m) => m.id],
      ["queue", (m) => m.queue],
      ["consumerGroup", (m) => m.consumerGroup],
      ["partition", (m) => m.partition],
      ["offset", (m) => m.offset, "num"],
      ["attempts", (m) => m.attempts, "num"],
      ["error", (m) => m.error],
      ["failedAt", (m) => m.failedAt],
      ["action", () => null],
    ], (tr, m, fresh) => {
      if (!fresh) return;
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "replay";
      b.setAttribute("data-testid", "replay");
      b.addEventListener("click", () => onReplay(m, b));
      const td = tr.cells[tr.cells.length - 1];
      td.textContent = "";
      td.appendChild(b);
    });
    $("dlq-empty").hidden = list.length > 0;
  };

  // kv: GET /api/v1/resources/kv/namespaces.
  QD.renderKV = function (k) {
    const list = (k && k.namespaces) || [];
    QD.syncRows($("kv-table").tBodies[0], "kv-row", "ns", list, (n) => n.namespace, [
      ["namespace", (n) => n.namespace],
      ["keys", (n) => n.keys, "num"],
    ]);
    $("kv-empty").hidden = list.length > 0;
  };

  // sink: the s3 block of GET /status (SINK-CONFIG.md §6), absent when no
  // sink runs in this process.
  QD.renderSink = function (status) {
    const s3 = status && status.s3;
    const state = $("sink-state"), table = $("sink-table");
    if (!s3) {
      state.textContent = "sink off";
      state.dataset.state = "off";
      table.hidden = true;
      table.tBodies[0].textContent = "";
      return;
    }
    const units = s3.sinks || [];
    state.dataset.state = s3.phase;
    const cpErr = s3.controlPlane && s3.controlPlane.error;
    state.textContent = "sink " + s3.phase + " (" + s3.mode + ", " + s3.threads + " threads, " + units.length + " sinks)" +
      units.map((u) => "; " + (u.sink || u.source) + ": " + u.phase + (u.error ? " — " + u.error : "") + (u.restarts ? ", restarts " + u.restarts : "")).join("") +
      (cpErr ? "; control plane: " + cpErr : "");
    const rows = [];
    for (const u of units) for (const q of (u.queues || [])) rows.push({ u, q });
    QD.syncRows(table.tBodies[0], "sink-queue-row", "queue", rows, (r) => (r.u.sink || r.u.source) + "/" + r.q.name, [
      ["sink", (r) => r.u.sink || r.u.source],
      ["queue", (r) => r.q.name],
      ["state", (r) => r.q.state],
      ["ownedHere", (r) => r.q.ownedHere ? "yes" : "held by " + fmt(r.q.heldBy)],
      ["windowsCommitted", (r) => r.q.windowsCommitted, "num"],
      ["records", (r) => r.q.records, "num"],
      ["lagSeconds", (r) => r.q.lagSeconds === null || r.q.lagSeconds === undefined ? null : Number(r.q.lagSeconds).toFixed(1), "num"],
      ["lastError", (r) => r.q.lastError ? r.q.lastError.at + " " + r.q.lastError.message : ""],
    ], (tr, r) => { tr.dataset.queueName = r.q.name; });
    table.hidden = false;
  };
})(window.QD);
