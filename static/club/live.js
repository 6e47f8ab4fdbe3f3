// The live channel for the page scripts (docs/live.md): the one place a page opens,
// follows and reopens a topic's stream (GET /api/live/stream/, server-sent events), and
// the one way a page redraws up to the latest version it has heard of. The board page
// (static/matches/play.js) and the live regions (static/club/live_region.js) use it.
window.clubLive = (function () {
  "use strict";
  const LOST_AFTER = 5000; // a stream down this long is shown as lost (its 5-minute end is not)
  const REOPEN_AFTER = 5000; // a refused stream (signed out) is asked for again this late
  const DRAW_AGAIN_AFTER = 5000; // a failed redraw is tried again this late

  const pause = (ms) => new Promise((done) => setTimeout(done, ms));

  // Follow ``topic`` on the stream at ``url`` from version ``since``: every event's data
  // ({topic, version, state}) goes to each function given to ``subscribe``. The browser
  // opens a stream that ended or broke again by itself, sending the last event's id as
  // Last-Event-ID; one it refused (a 4xx) is opened here again later, from the latest
  // version heard of. ``lost`` (an element, optional) is shown while the stream stays
  // down. ``close`` stops following.
  function stream({ url, topic, since, lost }) {
    const subscribers = [];
    let latest = Number(since);
    let source = null;
    let down = null;
    let closed = false;

    function showLost(shown) {
      if (lost) lost.hidden = !shown;
    }

    function open() {
      const address = new URL(url, window.location.href);
      address.searchParams.set("topic", topic);
      address.searchParams.set("since", latest);
      source = new EventSource(address);
      source.onopen = () => {
        clearTimeout(down);
        showLost(false);
      };
      source.onerror = () => {
        clearTimeout(down);
        down = setTimeout(() => showLost(true), LOST_AFTER);
        if (source.readyState === EventSource.CLOSED) setTimeout(reopen, REOPEN_AFTER);
      };
      source.onmessage = (event) => {
        const data = JSON.parse(event.data);
        latest = Math.max(latest, data.version);
        subscribers.forEach((subscriber) => subscriber(data));
      };
    }

    function reopen() {
      if (!closed) open();
    }

    open();
    return {
      subscribe(subscriber) {
        subscribers.push(subscriber);
      },
      close() {
        closed = true;
        clearTimeout(down);
        source.close();
      },
    };
  }

  // Redraw until the page shows the latest version announced (by the stream, or by the
  // answer to the page's own action). ``shown()`` is the version the page shows;
  // ``draw()`` fetches and swaps in the newest (a promise, rejected on failure: tried
  // again a little later). One draw at a time; a version announced while one is on its
  // way is drawn once that one is in, and a version already shown is not drawn again.
  // Returns ``announce(version)``, a promise of the page caught up.
  function catchUp({ shown, draw }) {
    let announced = 0;
    let drawing = null; // the one draw on its way

    function drawn() {
      if (announced <= shown()) return Promise.resolve();
      if (!drawing) {
        drawing = draw()
          .catch(() => pause(DRAW_AGAIN_AFTER))
          .finally(() => {
            drawing = null;
          });
      }
      return drawing.then(drawn);
    }

    return function announce(version) {
      announced = Math.max(announced, version);
      return drawn();
    };
  }

  return { stream, catchUp };
})();
