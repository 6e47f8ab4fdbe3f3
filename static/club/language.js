// The header's language menu: choosing a language sends its form at once (without a
// script, the menu's own Change button does). A static file, not an onchange attribute:
// the Content-Security-Policy runs no inline script (docs/operations.md, "Headers").
(function () {
  "use strict";
  for (const menu of document.querySelectorAll("form.language select[name=language]")) {
    menu.addEventListener("change", () => menu.form.submit());
  }
})();
