// kwire's catalogue: highlight a tree node's bytes and a byte's node; sort the index tables.
"use strict";

function linkSide(side) {
  const cells = Array.from(side.querySelectorAll("td[data-o]"));
  const nodes = Array.from(side.querySelectorAll(".node"));
  const clear = () => side.querySelectorAll(".hl").forEach((e) => e.classList.remove("hl"));
  const show = (node) => {
    clear();
    node.classList.add("hl");
    const start = Number(node.dataset.o);
    const end = start + Number(node.dataset.l);
    for (const cell of cells) {
      const at = Number(cell.dataset.o);
      if (at >= start && at < end) cell.classList.add("hl");
    }
  };
  for (const node of nodes) {
    node.addEventListener("mouseenter", () => show(node));
    node.addEventListener("focus", () => show(node));
    node.addEventListener("mouseleave", clear);
    node.addEventListener("blur", clear);
  }
  for (const cell of cells) {
    cell.addEventListener("mouseenter", () => {
      const node = nodes[Number(cell.dataset.n)];
      if (node) show(node);
    });
    cell.addEventListener("mouseleave", clear);
  }
}

function sortable(table) {
  const headers = Array.from(table.querySelectorAll("thead th"));
  headers.forEach((th, column) => {
    th.tabIndex = 0;
    const sort = () => {
      const ascending = th.getAttribute("aria-sort") !== "ascending";
      headers.forEach((h) => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      const body = table.tBodies[0];
      const key = (row) => row.cells[column].textContent.trim();
      const rows = Array.from(body.rows).sort((a, b) => {
        const x = key(a), y = key(b);
        const nx = parseFloat(x), ny = parseFloat(y);
        const order = !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach((row) => body.appendChild(row));
    };
    th.addEventListener("click", sort);
    th.addEventListener("keydown", (e) => { if (e.key === "Enter") sort(); });
  });
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".side").forEach(linkSide);
  document.querySelectorAll("table.sortable").forEach(sortable);
});
