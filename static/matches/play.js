// The board page (docs/play.md), and a chouette member's own board (docs/chouette.md):
// acts through the JSON API with the session, listens on the live channel (GET
// /api/live/stream/, server-sent events) and swaps in the board fragment the server draws whenever
// the table's version moves. No strings of its own: every text shown comes from the
// server, in the reader's language. With data-steps="local" (a chouette, whose API takes
// whole plays) the steps clicked are kept here and drawn by the server from the
// fragment's ?steps=, and "confirm" sends the whole play.
(function () {
  "use strict";
  const area = document.getElementById("table-area");
  if (!area) return;
  const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
  const localSteps = area.dataset.steps === "local";
  let state = readState();
  let selected = null;
  let clockBase = performance.now();
  let announced = 0; // the latest version the page has heard of (catchUp)

  function readState() {
    return JSON.parse(document.getElementById("table-state").textContent);
  }

  function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  function showError(text) {
    const box = document.getElementById("play-error");
    if (!box) return;
    box.textContent = text || "";
    box.hidden = !text;
  }

  // Fetch the board fragment again and put it in place of the old one.
  let refreshing = null;
  function fragmentUrl(steps) {
    if (!localSteps || !steps.length) return area.dataset.fragment;
    const query = new URLSearchParams({
      turn_no: state.turn_no,
      steps: steps.map((step) => step.join("-")).join("."),
    });
    return area.dataset.fragment + "?" + query;
  }

  function refresh(steps) {
    if (refreshing && steps) return refreshing.then(() => refresh(steps));
    if (!refreshing) {
      const url = fragmentUrl(steps || (localSteps ? state.pending : []));
      refreshing = fetch(url, { credentials: "same-origin", cache: "no-store" })
        .then((response) => (response.ok ? response.text() : Promise.reject(response)))
        .then((html) => {
          area.innerHTML = html;
          state = readState();
          selected = null;
          clockBase = performance.now();
          tickClocks();
        })
        .finally(() => {
          refreshing = null;
        });
    }
    return refreshing;
  }

  // A chouette's unconfirmed steps: one more, one fewer, or the whole play sent.
  function stepLocally(action, body) {
    if (action === "move_step") return refresh([...state.pending, [body.origin, body.die]]);
    if (action === "undo") return refresh(state.pending.slice(0, -1));
    return act("move", { play: state.play });
  }

  async function act(action, body, turnNo) {
    if (localSteps && ["move_step", "undo", "confirm"].includes(action)) {
      return stepLocally(action, body);
    }
    showError("");
    // An answer to a double carries the offer's turn number (a chouette's cubes).
    const turn = turnNo === undefined ? state.turn_no : Number(turnNo);
    const response = await fetch(area.dataset.api + action + "/", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(Object.assign({ turn_no: turn }, body || {})),
    });
    if (!response.ok) {
      const error = await response.json().catch(() => ({ detail: response.statusText }));
      await refresh([]);
      showError(error.detail);
      return;
    }
    // The answer names the version the action made: draw up to it, once. (A redraw of
    // the same version would drop a checker the player has tapped meanwhile.)
    const { version } = await response.json().catch(() => ({}));
    if (version === undefined) return refresh([]);
    announced = Math.max(announced, version);
    await catchUp();
  }

  // A button's data-* other than data-act and data-turn-no are its request's fields.
  function buttonBody(button) {
    const body = Object.assign({}, button.dataset);
    delete body.act;
    delete body.turnNo;
    return body;
  }

  // A form's fields; those named in data-many are lists (the box's double "to").
  function formBody(form) {
    const many = (form.dataset.many || "").split(" ").filter(Boolean);
    const body = Object.fromEntries(many.map((name) => [name, []]));
    for (const [name, value] of new FormData(form)) {
      if (many.includes(name)) body[name].push(value);
      else body[name] = value;
    }
    return body;
  }

  // The live channel: one stream of the table's versions (server-sent events). The
  // browser opens it again by itself when it ends or breaks, telling the server the last
  // version it had, so a page back from sleep catches up with one fetch. "Lost" shows
  // only when the stream stays down; a stream refused (signed out) is tried again later.
  function listen() {
    const lost = document.getElementById("live-lost");
    const url = new URL(area.dataset.live, window.location.href);
    url.searchParams.set("topic", state.topic);
    url.searchParams.set("since", state.version);
    const source = new EventSource(url);
    let down = null;
    source.onopen = () => {
      clearTimeout(down);
      lost.hidden = true;
    };
    source.onerror = () => {
      clearTimeout(down);
      down = setTimeout(() => (lost.hidden = false), 5000);
      if (source.readyState === EventSource.CLOSED) setTimeout(listen, 5000);
    };
    source.onmessage = (event) => {
      announced = Math.max(announced, JSON.parse(event.data).version);
      catchUp();
    };
  }

  // Draw until the board shows the latest version announced (by the stream, or by the
  // answer to the page's own action): an event that comes while a fetch is on its way
  // is not lost with that fetch's older board, and a version already shown is not
  // fetched again.
  function catchUp() {
    if (announced <= state.version) return Promise.resolve();
    return refresh().then(catchUp, () => sleep(5000).then(catchUp));
  }

  // Checkers moved by clicking: a checker, then one of its landing points (T3).
  function mark() {
    area.querySelectorAll(".selected, .landing").forEach((g) => g.classList.remove("selected", "landing"));
    if (selected === null) return;
    area.querySelector(`svg.board [data-point="${selected}"]`).classList.add("selected");
    for (const to of Object.keys(state.steps[selected])) {
      area.querySelector(`svg.board [data-point="${to}"]`).classList.add("landing");
    }
  }

  area.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-act]");
    if (button) {
      act(button.dataset.act, buttonBody(button), button.dataset.turnNo);
      return;
    }
    const target = event.target.closest("svg.board [data-point]");
    if (!target || !state.my_turn) return;
    const point = target.dataset.point;
    if (selected !== null && point in state.steps[selected]) {
      const die = state.steps[selected][point];
      const origin = Number(selected);
      selected = null;
      mark();
      act("move_step", { origin: origin, die: die });
      return;
    }
    selected = point in state.steps && selected !== point ? point : null;
    mark();
  });

  area.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-act]");
    if (!form) return;
    event.preventDefault();
    act(form.dataset.act, formBody(form));
  });

  // Both clocks: the side on turn counts down from what the server said, on this
  // device's own clock (no trust in the two clocks agreeing).
  function format(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const rest = String(s % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
  }

  function tickClocks() {
    const spent = (performance.now() - clockBase) / 1000;
    area.querySelectorAll(".clock[data-left]").forEach((clock) => {
      const left = Number(clock.dataset.left) - ("running" in clock.dataset ? spent : 0);
      clock.textContent = format(left);
    });
  }

  setInterval(tickClocks, 250);
  tickClocks();
  listen();
})();
