// The payout table of a tournament's admin page (tournaments/payout_form.py): keeps the
// sum of the shares under the rows as the director types, marks it when it is not what
// the unit adds up to (100 percent, 1), and adds a blank row on "Add a place". The
// admin loads it in the page's head: it starts once the page is read.
(function () {
  "use strict";

  function start(table) {
    const unit = table.querySelector(".payout-unit");
    const count = table.querySelector(".payout-count");
    const body = table.querySelector("tbody");
    const sum = table.querySelector(".payout-sum");
    const add = table.querySelector(".payout-add");

    function decimals(text) {
      const part = text.split(".")[1];
      return part ? part.length : 0;
    }

    function update() {
      const shares = [...table.querySelectorAll(".payout-share")]
        .map((input) => input.value.trim())
        .filter((text) => text !== "");
      if (shares.some((text) => !/^\d+(\.\d+)?$/.test(text))) {
        sum.textContent = "";
        return;
      }
      const places = Math.max(0, ...shares.map(decimals));
      const total = shares.reduce((all, text) => all + Math.round(Number(text) * 10 ** places), 0);
      sum.textContent = (total / 10 ** places).toFixed(places);
      const name = "expected" + unit.value[0].toUpperCase() + unit.value.slice(1);
      const expected = table.dataset[name]; // none for amounts: they add up to the pool
      const off = Boolean(expected) && Number(expected) !== total / 10 ** places;
      sum.classList.toggle("payout-off", off);
    }

    add.hidden = false;
    add.addEventListener("click", () => {
      const last = body.lastElementChild;
      const row = last.cloneNode(true);
      const index = Number(count.value);
      row.querySelectorAll("select, input").forEach((field) => {
        field.name = field.name.replace(/-\d+-/, `-${index}-`);
        if (field.tagName === "INPUT") field.value = "";
        else field.selectedIndex = 0;
      });
      body.appendChild(row);
      count.value = String(index + 1);
    });
    table.addEventListener("input", update);
    table.addEventListener("change", update);
    update();
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll(".payout-table").forEach(start);
  });
})();
