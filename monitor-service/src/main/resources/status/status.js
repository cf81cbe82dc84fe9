// Refreshes the live part of a Vigil status page in place (no reload, no flicker): every
// data-refresh seconds it fetches data-fragment (server-rendered, already escaped HTML) and swaps
// it in. Without JavaScript the page is complete as served.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.fetch) {
    return;
  }
  var seconds = parseInt(live.getAttribute("data-refresh"), 10);
  var url = live.getAttribute("data-fragment");
  if (!(seconds > 0) || !url) {
    return;
  }
  function refresh() {
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        var parsed = new DOMParser().parseFromString(html, "text/html");
        live.replaceChildren.apply(live, Array.prototype.slice.call(parsed.body.childNodes));
        live.removeAttribute("data-stale");
      })
      .catch(function () {
        live.setAttribute("data-stale", "true");
      })
      .finally(function () {
        window.setTimeout(refresh, seconds * 1000);
      });
  }
  window.setTimeout(refresh, seconds * 1000);
})();
