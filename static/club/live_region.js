// A page region that follows its live topic (docs/live.md): the chouette table and a
// tournament's page. The server streams the topic's versions (GET /api/live/stream/,
// server-sent events); on a newer one the page fetches its region alone (its own
// address with ?live=region: the view answers the region's template, without the base's
// header and footer) and swaps it in, where the reader is (no reload). A fresh region with no topic is finished: nothing
// more will move, so the page stops following. A failed fetch waits a little.
(function () {
  "use strict";
  const region = document.querySelector("[data-live-region]");
  if (!region || !region.dataset.liveTopic) {
    return;
  }
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));

  async function refresh() {
    const address = new URL(window.location.href);
    address.searchParams.set("live", "region");
    const answer = await fetch(address, { credentials: "same-origin" });
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = page.querySelector("[data-live-region]");
    if (!answer.ok || !fresh) {
      return;
    }
    region.innerHTML = fresh.innerHTML;
    if (fresh.dataset.liveTopic) {
      region.dataset.liveVersion = fresh.dataset.liveVersion;
    } else {
      delete region.dataset.liveTopic;
    }
  }

  // One stream of the topic's versions (server-sent events); the browser opens it again
  // by itself when it ends or breaks, telling the server the last version it had.
  // Redraws are one at a time; a version the region already shows is skipped.
  let redrawn = Promise.resolve();
  function follow() {
    const url = new URL(region.dataset.liveUrl, window.location.href);
    url.searchParams.set("topic", region.dataset.liveTopic);
    url.searchParams.set("since", region.dataset.liveVersion);
    const source = new EventSource(url);
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) setTimeout(follow, 5000);
    };
    source.onmessage = (event) => {
      const { version } = JSON.parse(event.data);
      redrawn = redrawn.then(async () => {
        if (region.dataset.liveTopic && version > Number(region.dataset.liveVersion)) {
          await refresh().catch(() => pause(5000));
        }
        if (!region.dataset.liveTopic) source.close();
      });
    };
  }

  follow();
})();
