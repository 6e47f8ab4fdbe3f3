// A page region that follows its live topic (docs/live.md): the chouette table and a
// tournament's page. The server holds GET /api/live/ until the topic's version moves,
// then the page fetches its region alone (its own address with ?live=region: the view
// answers the region's template, without the base's header and footer) and swaps it in,
// where the reader is (no reload). A fresh region with no topic is finished: nothing
// more will move, so the page stops asking. A failed request waits a little and asks
// again.
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

  async function follow() {
    while (region.dataset.liveTopic) {
      const url = new URL(region.dataset.liveUrl, window.location.href);
      url.searchParams.set("topic", region.dataset.liveTopic);
      url.searchParams.set("since", region.dataset.liveVersion);
      url.searchParams.set("wait", "25");
      try {
        const answer = await fetch(url, { credentials: "same-origin" });
        if (!answer.ok) {
          await pause(5000);
          continue;
        }
        const { version } = await answer.json();
        if (String(version) !== region.dataset.liveVersion) {
          await refresh();
        }
      } catch (error) {
        await pause(5000);
      }
    }
  }

  follow();
})();
