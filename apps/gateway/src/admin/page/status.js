// The Switchyard status page: polls /admin/status every second and redraws. No build step: plain
// browser JavaScript beside uPlot's published IIFE build. Text goes in through textContent only.

(() => {
  const POLL_MS = 1000;
  const TOKEN_KEY = 'switchyard.admin.token';
  const $ = (id) => document.getElementById(id);
  const charts = {};

  const fmt = (n, digits = 0) => (n === undefined || n === null ? '–' : Number(n).toFixed(digits));
  const time = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '–');

  function row(cells, attrs = {}) {
    const tr = document.createElement('tr');
    for (const [k, v] of Object.entries(attrs)) tr.setAttribute(k, v);
    for (const cell of cells) {
      const td = document.createElement('td');
      const { text, cls } = typeof cell === 'object' && cell !== null ? cell : { text: cell };
      td.textContent = text === undefined || text === null ? '' : String(text);
      if (cls) td.className = cls;
      tr.append(td);
    }
    return tr;
  }

  // The quarantined rows whose diff is open, by kind and name: the table is redrawn every second.
  const openDiffs = new Set();

  function pre(label, text) {
    const el = document.createElement('pre');
    el.className = `diff-${label}`;
    el.dataset.label = label;
    // textContent only: an upstream's description must not become markup.
    el.textContent = text === '' ? '(none)' : text;
    if (text === '') el.classList.add('muted');
    return el;
  }

  // The diff of one quarantined tool or prompt: a details element, each field's before and after in <pre>.
  function diffCell(q) {
    const td = document.createElement('td');
    const diff = q.diff ?? [];
    if (diff.length === 0) {
      td.textContent = '–';
      return td;
    }
    const key = `${q.kind} ${q.name}`;
    const details = document.createElement('details');
    details.open = openDiffs.has(key);
    details.addEventListener('toggle', () => {
      if (details.open) openDiffs.add(key);
      else openDiffs.delete(key);
    });
    const summary = document.createElement('summary');
    summary.textContent = `${diff.length} field${diff.length === 1 ? '' : 's'}`;
    details.append(summary);
    for (const d of diff) {
      const block = document.createElement('div');
      block.className = 'diff';
      const field = document.createElement('div');
      field.className = 'diff-field';
      field.textContent = d.field;
      block.append(field, pre('before', d.before), pre('after', d.after));
      details.append(block);
    }
    td.append(details);
    return td;
  }

  // Redraws a table in place: a row or cell that reads the same keeps its node. Replacing them all each
  // second lost clicks: a button pressed as the poll swapped it never saw its mouseup.
  function fill(tableId, rows) {
    const tbody = $(tableId).querySelector('tbody');
    rows.forEach((tr, i) => {
      const old = tbody.children[i];
      if (old === undefined) tbody.append(tr);
      else if (sameShell(old, tr)) patchCells(old, tr);
      else old.replaceWith(tr);
    });
    while (tbody.children.length > rows.length) tbody.lastElementChild.remove();
  }

  // The same element with the same attributes and as many children (their content aside).
  const sameShell = (a, b) =>
    a.cloneNode(false).outerHTML === b.cloneNode(false).outerHTML && a.children.length === b.children.length;

  function patchCells(old, tr) {
    [...tr.children].forEach((cell, i) => {
      const current = old.children[i];
      if (current.outerHTML !== cell.outerHTML) current.replaceWith(cell);
    });
  }

  function chart(id, label, color) {
    const el = $(id);
    const opts = {
      width: Math.max(280, el.clientWidth),
      height: 160,
      legend: { show: false },
      scales: { x: { time: true } },
      axes: [{}, { size: 40 }],
      series: [{}, { label, stroke: color, fill: `${color}22`, width: 1.5 }],
    };
    return new uPlot(opts, [[], []], el);
  }

  function drawCharts(series, startedAt) {
    if (typeof uPlot === 'undefined') return;
    // The window starts at the gateway's start when that is later: no flat line before it existed.
    const since = Date.parse(startedAt) - series.bucketMs;
    const buckets = series.buckets.filter((b) => b.t >= since);
    charts.rate ??= chart('chart-rate', 'req/s', '#0969da');
    charts.errors ??= chart('chart-errors', 'err/s', '#cf222e');
    charts.latency ??= chart('chart-latency', 'avg ms', '#8250df');
    const perSec = series.bucketMs / 1000;
    const xs = buckets.map((b) => b.t / 1000);
    charts.rate.setData([xs, buckets.map((b) => b.requests / perSec)]);
    charts.errors.setData([xs, buckets.map((b) => b.errors / perSec)]);
    charts.latency.setData([xs, buckets.map((b) => b.latencyAvgMs)]);
  }

  const authHeaders = () => {
    const token = sessionStorage.getItem(TOKEN_KEY);
    return token ? { authorization: `Bearer ${token}` } : {};
  };

  // The approve plugin's pending approvals (`approvals` in the status, or GET admin/approvals for an
  // approver outside the admin groups), each with Approve / Deny buttons that POST the decision.
  function renderApprovals(pending, note) {
    $('approvals-section').hidden = pending === undefined;
    if (pending === undefined) return;
    $('approvals-note').textContent = note;
    fill(
      'approvals',
      pending.map((a) => {
        const tr = row([
          a.identity,
          a.tool,
          a.server,
          '',
          `${Math.max(0, Math.round((Date.parse(a.expiresAt) - Date.now()) / 1000))} s`,
          '',
        ]);
        tr.setAttribute('data-approval', a.id);
        const pre = document.createElement('pre');
        pre.className = 'arguments';
        pre.textContent = JSON.stringify(a.arguments ?? {}, null, 2).slice(0, 4096);
        tr.children[3].append(pre);
        for (const decision of ['approve', 'deny']) {
          const button = document.createElement('button');
          button.type = 'button';
          button.className = `decide ${decision}`;
          button.textContent = decision === 'approve' ? 'Approve' : 'Deny';
          button.addEventListener('click', () => decide(a.id, decision));
          tr.children[5].append(button);
        }
        return tr;
      }),
    );
  }

  async function decide(id, decision) {
    $('approvals-error').textContent = '';
    try {
      const res = await fetch(`admin/approvals/${encodeURIComponent(id)}`, {
        method: 'POST',
        headers: { ...authHeaders(), 'content-type': 'application/json' },
        body: JSON.stringify({ decision }),
      });
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        $('approvals-error').textContent = body.error ?? `HTTP ${res.status}`;
      }
    } catch (error) {
      $('approvals-error').textContent = error.message;
    }
    poll();
  }

  // POST admin/pins/approve with the digest the row showed: a 409 means the upstream changed the
  // definition since, and the redrawn row shows the new one to review.
  async function approvePin(name, digest) {
    $('pins-error').textContent = '';
    try {
      const res = await fetch('admin/pins/approve', {
        method: 'POST',
        headers: { ...authHeaders(), 'content-type': 'application/json' },
        body: JSON.stringify({ name, digest }),
      });
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        $('pins-error').textContent = body.message ?? body.error ?? `HTTP ${res.status}`;
      }
    } catch (error) {
      $('pins-error').textContent = error.message;
    }
    poll();
  }

  // The signed-in identity's own personal upstreams (DESIGN §14), with Connect / Disconnect. Every
  // identity sees its own, admin or not; the section stays hidden when no upstream is personal.
  function renderCredentials(credentials) {
    $('credentials-section').hidden = credentials.length === 0;
    fill(
      'credentials',
      credentials.map((c) => {
        const tr = row([c.server, c.connected ? 'connected' : 'not connected', time(c.expiresAt), ''], {
          'data-credential': c.server,
        });
        const button = document.createElement('button');
        button.type = 'button';
        button.className = c.connected ? 'disconnect' : 'connect';
        button.textContent = c.connected ? 'Disconnect' : 'Connect';
        button.addEventListener('click', () => (c.connected ? disconnect(c.server) : connect(c.server)));
        tr.children[3].append(button);
        return tr;
      }),
    );
  }

  async function loadCredentials() {
    try {
      const res = await fetch('admin/credentials', { headers: authHeaders(), cache: 'no-store' });
      if (!res.ok) {
        $('credentials-section').hidden = true;
        return;
      }
      renderCredentials((await res.json()).credentials ?? []);
    } catch {
      $('credentials-section').hidden = true;
    }
  }

  async function credentialCall(server, method) {
    $('credentials-error').textContent = '';
    const res = await fetch(`admin/credentials/${encodeURIComponent(server)}`, {
      method,
      headers: authHeaders(),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
    return body;
  }

  // Connect opens the server's sign-in in a new tab (this page keeps polling and shows it connected).
  async function connect(server) {
    try {
      const { url } = await credentialCall(server, 'POST');
      // (With 'noopener' window.open answers null even when it opened the tab: cut the opener instead.)
      const tab = window.open(url, '_blank');
      if (tab) tab.opener = null;
      else window.location.assign(url);
    } catch (error) {
      $('credentials-error').textContent = error.message;
    }
  }

  async function disconnect(server) {
    try {
      await credentialCall(server, 'DELETE');
    } catch (error) {
      $('credentials-error').textContent = error.message;
    }
    loadCredentials();
  }

  /** An approver outside the admin groups sees the approvals only; undefined when it may not either. */
  async function approverView() {
    const res = await fetch('admin/approvals', { headers: authHeaders(), cache: 'no-store' });
    if (!res.ok) return undefined;
    return (await res.json()).pending ?? [];
  }

  function render(s) {
    const badge = $('readiness');
    badge.textContent = s.readiness.status === 'ready' ? 'ready' : 'not ready';
    badge.className = `badge ${s.readiness.status}`;
    // Replicas sharing a store (DESIGN §12): whether it answers.
    const store = $('store');
    store.hidden = s.readiness.store === undefined;
    store.textContent = s.readiness.store === 'degraded' ? 'store degraded' : 'store ok';
    store.className = `badge ${s.readiness.store === 'degraded' ? 'not_ready' : 'ready'}`;
    $('meta').textContent = `core ${s.version} · up ${Math.round(s.uptimeMs / 1000)} s · ${s.listeners
      .map((l) => l.url)
      .join(' · ')}`;
    $('updated').textContent = `updated ${time(s.time)}`;
    $('requests-total').textContent = String(s.requests.total);
    $('requests-errors').textContent = String(s.requests.errors);
    $('requests-latency').textContent = `${fmt(s.requests.p50Ms, 1)} / ${fmt(s.requests.p99Ms, 1)} ms`;
    $('sessions-total').textContent = String(s.sessions.total);
    $('subscriptions').textContent = String(s.subscriptions);
    $('cache').textContent = s.cache
      ? `${s.cache.hitRatio === undefined ? '–' : `${Math.round(s.cache.hitRatio * 100)} %`} · ${fmt((s.cache.bytes ?? 0) / 1024, 1)} KiB`
      : 'off';
    const refusals = Object.entries(s.refusals);
    $('refusals').textContent = refusals.length
      ? refusals.map(([reason, n]) => `${reason} ${n}`).join(', ')
      : '0';
    fill(
      'upstreams',
      s.upstreams.map((u) =>
        row(
          [
            `${u.name}${u.required ? ' (required)' : ''}`,
            { text: u.state, cls: `state state-${u.state}` },
            u.era ?? '–',
            u.transport,
            time(u.connectedSince),
            { text: u.calls, cls: 'calls' },
            { text: u.errors, cls: 'errors' },
            fmt(u.p50Ms, 1),
            fmt(u.p99Ms, 1),
            { text: u.lastError ?? '', cls: 'wrap' },
          ],
          { 'data-upstream': u.name },
        ),
      ),
    );
    // Virtual servers (DESIGN §13): what each exposes and where clients reach it.
    const virtual = s.virtualServers ?? [];
    $('virtual-section').hidden = virtual.length === 0;
    fill(
      'virtual-servers',
      virtual.map((v) =>
        row(
          [
            v.name,
            { text: v.servers.join(', '), cls: 'wrap' },
            v.tools,
            v.prompts,
            v.toolSearch ? 'on' : 'off',
            v.sessions,
            { text: v.urls.join(' · '), cls: 'wrap' },
          ],
          { 'data-virtual-server': v.name },
        ),
      ),
    );
    // The pin plugin's section (`pins`), when it is loaded: what it quarantines, which fields changed,
    // and the diff (before: the pinned definition, after: the one listed now).
    $('pins-section').hidden = s.pins === undefined;
    if (s.pins !== undefined) {
      $('pins-mode').textContent = `mode ${s.pins.mode} · ${s.pins.lockFile}`;
      fill(
        'pins',
        (s.pins.quarantined ?? []).map((q) => {
          const tr = row(
            [
              q.name,
              q.server,
              q.kind,
              q.status ?? 'changed',
              { text: (q.changed ?? []).join(', ') || '–', cls: 'wrap' },
            ],
            { 'data-pin': `${q.kind} ${q.name}` },
          );
          tr.append(diffCell(q));
          // Approves the definition whose diff this row shows: the button carries its digest, so a
          // definition listed after the diff was drawn gets a new button (the approval of the old
          // one is refused with 409, to review again).
          const td = document.createElement('td');
          const button = document.createElement('button');
          button.type = 'button';
          button.className = 'approve-pin';
          button.dataset.digest = q.digest;
          button.textContent = 'Approve';
          button.addEventListener('click', () => approvePin(q.name, button.dataset.digest));
          td.append(button);
          tr.append(td);
          return tr;
        }),
      );
    }
    renderApprovals(
      s.approvals?.pending,
      s.approvals ? `held up to ${Math.round(s.approvals.timeoutMs / 1000)} s` : '',
    );
    fill(
      'sessions',
      s.sessions.byIdentity.map((x) => row([x.identity, x.transport, x.sessions])),
    );
    fill(
      'reloads',
      s.reloads.map((r) =>
        row([
          time(r.time),
          r.outcome,
          r.error ??
            ['added', 'removed', 'changed'].map((k) => `${k}: ${(r[k] ?? []).join(', ')}`).join('; '),
        ]),
      ),
    );
    fill(
      'recent',
      s.recent.map((r) =>
        row([
          time(r.time),
          r.identity,
          r.transport,
          r.method,
          { text: r.target ?? '', cls: 'wrap' },
          { text: r.outcome === 'ok' ? 'ok' : `${r.reason ?? r.code}`, cls: `outcome-${r.outcome}` },
          fmt(r.durationMs, 1),
          r.cache ?? '',
        ]),
      ),
    );
    drawCharts(s.series, s.startedAt);
  }

  let timer;
  async function poll() {
    clearTimeout(timer);
    const token = sessionStorage.getItem(TOKEN_KEY);
    try {
      const res = await fetch('admin/status', { headers: authHeaders(), cache: 'no-store' });
      await loadCredentials();
      if (res.status === 403 && token) {
        const pending = await approverView();
        // Anyone known may manage their own accounts, even outside the admin and approver groups.
        if (pending !== undefined || !$('credentials-section').hidden) {
          $('main').hidden = true;
          $('login').hidden = true;
          if (pending !== undefined) renderApprovals(pending, 'approver view');
          $('updated').textContent = `updated ${time(new Date().toISOString())}`;
          timer = setTimeout(poll, POLL_MS);
          return;
        }
      }
      if (res.status === 401 || res.status === 403) {
        $('approvals-section').hidden = true;
        $('credentials-section').hidden = true;
        const body = await res.json().catch(() => ({}));
        $('main').hidden = true;
        $('login').hidden = false;
        $('login-error').textContent = token ? (body.error ?? `HTTP ${res.status}`) : '';
        return;
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      $('login').hidden = true;
      $('main').hidden = false;
      render(await res.json());
    } catch (error) {
      $('updated').textContent = `cannot reach the gateway: ${error.message}`;
    }
    timer = setTimeout(poll, POLL_MS);
  }

  $('login').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
    poll();
  });
  poll();
})();
