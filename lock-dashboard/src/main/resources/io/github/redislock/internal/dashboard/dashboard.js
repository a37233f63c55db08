// The redislock dashboard: reads /api/state every few seconds and renders it; write
// actions go as POSTs with the dashboard's header (and Spring Security's CSRF token when
// the application has one). No framework, no network access beyond this application.
(function () {
  'use strict';
  const base = document.body.dataset.base;
  let state = null;
  let selected = null;
  let timer = null;

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (name === 'text') {
        node.textContent = value;
      } else if (name.startsWith('on')) {
        node.addEventListener(name.substring(2), value);
      } else {
        node.setAttribute(name, value);
      }
    }
    children.forEach((child) => node.append(child));
    return node;
  }

  function duration(millis) {
    if (millis < 1000) return millis + ' ms';
    const seconds = millis / 1000;
    if (seconds < 120) return seconds.toFixed(1) + ' s';
    const minutes = seconds / 60;
    return minutes < 120 ? minutes.toFixed(1) + ' min' : (minutes / 60).toFixed(1) + ' h';
  }

  // JavaScript's dates end 8.64e15 ms after 1970 (year 275760); a task may be due later.
  function time(epochMillis) {
    const date = new Date(epochMillis);
    if (Number.isNaN(date.getTime())) {
      return (epochMillis > 0 ? 'after year 275760' : 'before year -271821') + ' (' + epochMillis + ' ms)';
    }
    return date.toISOString().replace('T', ' ').replace('Z', ' UTC');
  }

  function bytes(count) {
    if (count < 1024) return count + ' B';
    return count < 1024 * 1024 ? (count / 1024).toFixed(1) + ' KB' : (count / 1024 / 1024).toFixed(1) + ' MB';
  }

  // A preview cut by the server: say how long the whole is.
  function cut(preview, fullBytes) {
    return new TextEncoder().encode(preview).length < fullBytes ? preview + ' … (' + bytes(fullBytes) + ' in all)' : preview;
  }

  function status(text, error) {
    const node = document.getElementById('status');
    node.textContent = text;
    node.classList.toggle('error', !!error);
  }

  // GET: params in the query. POST: params as a JSON body (ids of any length and any
  // characters fit there).
  async function request(method, path, params) {
    const url = new URL(base + path, window.location.href);
    const headers = { 'X-RedisLock-Dashboard': '1', 'Accept': 'application/json' };
    const init = { method, headers, credentials: 'same-origin' };
    if (method === 'POST') {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(params || {});
      if (state && state.csrf) {
        headers[state.csrf.headerName] = state.csrf.token;
      }
    } else {
      Object.entries(params || {}).forEach(([name, value]) => url.searchParams.set(name, value));
    }
    const response = await fetch(url, init);
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      throw new Error(body.error || (response.status + ' ' + response.statusText));
    }
    return body;
  }

  async function act(action, queue, id) {
    try {
      const params = { action, queue };
      if (id !== undefined) params.id = id;
      const result = await request('POST', '/api/action', params);
      status(result.message);
      await refresh();
    } catch (error) {
      status('Could not ' + action + ': ' + error.message, true);
    }
  }

  // One task whole, fetched only when asked for.
  async function showTask(queue, id, state) {
    try {
      const task = await request('GET', '/api/task', { queue, id, state });
      document.getElementById('task-view-id').textContent = id;
      const error = document.getElementById('task-view-error');
      error.textContent = state === 'dead' ? task.error : '';
      error.hidden = state !== 'dead';
      document.getElementById('task-view-error-title').hidden = state !== 'dead';
      document.getElementById('task-view-payload').textContent = task.payload;
      document.getElementById('task-view').hidden = false;
    } catch (error) {
      status('Could not read ' + id + ': ' + error.message, true);
    }
  }

  function noneRow(body, columns, text) {
    if (!body.children.length) {
      body.append(el('tr', { class: 'none' }, el('td', { colspan: String(columns), text })));
    }
  }

  function renderQueues() {
    const body = document.querySelector('#queues tbody');
    body.replaceChildren();
    document.getElementById('no-queues').hidden = state.queues.length > 0;
    for (const queue of state.queues) {
      const actions = el('td', { class: 'write' });
      if (state.canWrite) {
        actions.append(queue.paused
          ? el('button', { type: 'button', class: 'resume', text: 'Resume', onclick: () => act('resume', queue.name) })
          : el('button', { type: 'button', class: 'pause', text: 'Pause', onclick: () => act('pause', queue.name) }));
      }
      const row = el('tr', { 'data-queue': queue.name },
        el('td', {}, el('a', { href: '#', class: 'queue', text: queue.name,
          onclick: (event) => { event.preventDefault(); selected = queue.name; refresh(); } })),
        el('td', { class: 'num ready', text: queue.ready }),
        el('td', { class: 'num delayed', text: queue.delayed }),
        el('td', { class: 'num inflight', text: queue.inflight }),
        el('td', { class: 'num dead', text: queue.dead }),
        el('td', { class: 'num lag', text: duration(queue.lagMillis) }),
        el('td', { class: 'state ' + (queue.paused ? 'paused' : 'running'), text: queue.paused ? 'paused' : 'running' }),
        actions);
      if (queue.name === selected) row.classList.add('selected');
      body.append(row);
    }
  }

  function renderDetails(details) {
    const section = document.getElementById('queue-details');
    section.hidden = !details;
    if (!details) return;
    document.getElementById('selected-queue').textContent = details.summary.name;
    const dead = document.querySelector('#dead tbody');
    dead.replaceChildren();
    for (const task of details.deadLetters) {
      const actions = el('td', { class: 'write' });
      if (state.canWrite) {
        actions.append(el('button', { type: 'button', class: 'requeue', text: 'Requeue',
          onclick: () => act('requeue', details.summary.name, task.id) }));
        actions.append(el('button', { type: 'button', class: 'delete danger', text: 'Delete',
          onclick: () => act('delete', details.summary.name, task.id) }));
      }
      dead.append(el('tr', { 'data-id': task.id },
        el('td', { text: task.id }), el('td', { class: 'num', text: task.attempts }),
        el('td', { class: 'error', text: cut(task.error, task.errorBytes) }), el('td', { text: time(task.diedAt) }),
        el('td', {}, el('button', { type: 'button', class: 'show-payload', text: 'Show ' + bytes(task.payloadBytes),
          onclick: () => showTask(details.summary.name, task.id, 'dead') })),
        actions));
    }
    noneRow(dead, 6, 'No dead letters');
    const upcoming = document.querySelector('#upcoming tbody');
    upcoming.replaceChildren();
    for (const task of details.upcoming) {
      const actions = el('td', { class: 'write' });
      if (state.canWrite) {
        actions.append(el('button', { type: 'button', class: 'cancel', text: 'Cancel',
          onclick: () => act('cancel', details.summary.name, task.id) }));
      }
      upcoming.append(el('tr', { 'data-id': task.id },
        el('td', { text: task.id }), el('td', { class: 'due', text: time(task.dueAt) }),
        el('td', {}, el('button', { type: 'button', class: 'show-payload', text: 'Show ' + bytes(task.payloadBytes),
          onclick: () => showTask(details.summary.name, task.id, 'waiting') })),
        actions));
    }
    noneRow(upcoming, 4, 'No delayed tasks');
    document.getElementById('incomplete').hidden = details.complete;
  }

  function renderLocks() {
    const body = document.querySelector('#locks tbody');
    body.replaceChildren();
    for (const lock of state.locks) {
      body.append(el('tr', { 'data-lock': lock.name },
        el('td', { text: lock.name }), el('td', { text: lock.kind }),
        el('td', { class: 'num', text: duration(lock.heldMillis) }),
        el('td', { class: 'num', text: duration(lock.leaseLeftMillis) }),
        el('td', { class: 'num', text: lock.fencingToken })));
    }
    noneRow(body, 5, 'None');
  }

  async function refresh() {
    clearTimeout(timer);
    try {
      state = await request('GET', '/api/state');
      document.body.classList.toggle('read-only', !state.canWrite);
      if (!state.queues.some((queue) => queue.name === selected)) {
        selected = state.queues.length ? state.queues[0].name : null;
      }
      renderQueues();
      renderLocks();
      renderDetails(selected ? await request('GET', '/api/queue', { name: selected }) : null);
      document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes) + 1);
      if (!document.getElementById('status').classList.contains('error')) {
        status('Updated ' + new Date().toLocaleTimeString() + (state.canWrite ? '' : ' · read-only'));
      }
    } catch (error) {
      status('Could not load: ' + error.message, true);
    }
    timer = setTimeout(() => { document.getElementById('status').classList.remove('error'); refresh(); },
      state ? state.refreshMillis : 3000);
  }

  document.getElementById('task-view-close').addEventListener('click', () => {
    document.getElementById('task-view').hidden = true;
  });
  document.getElementById('purge').addEventListener('click', () => {
    if (selected && window.confirm('Remove every dead letter of ' + selected + '?')) act('purge', selected);
  });
  document.getElementById('holder-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const output = document.getElementById('holder-result');
    try {
      const found = await request('GET', '/api/holder', { name: document.getElementById('holder-name').value });
      output.textContent = found.holder
        ? 'Held by ' + (found.holder.application || 'an application') + ' on ' + found.holder.host + ' (pid '
          + found.holder.pid + ', instance ' + found.holder.instanceId + ')'
          + (found.holder.acquiredAt ? ' since ' + found.holder.acquiredAt : '') + ', lease left '
          + duration(found.leaseLeftMillis)
        : 'Free';
    } catch (error) {
      output.textContent = error.message;
    }
  });
  refresh();
})();
