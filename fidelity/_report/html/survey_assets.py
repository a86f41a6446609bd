"""The survey page's inline style and script.

The script reads the page's state from the URL fragment (``group``, ``kind``, ``chain``,
``family``), hides the columns of other chain groups, marks the cells where the chosen
kind was seen, and shows the section of the chosen cell; a click on a cell (or Enter on a
focused one) writes the fragment, so the back button and links work. It never builds
markup from text: it only toggles attributes and classes of what the page holds.
"""

from __future__ import annotations

__all__ = ["SCRIPT", "STYLE"]

STYLE = """
[hidden] { display: none !important; }
main { max-width: 1400px; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 6px 0 12px; font-size: 13px;
  color: var(--muted); padding: 0; list-style: none; }
.legend li { display: flex; align-items: center; gap: 6px; }
.scroll { overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 8px;
  padding: 10px 12px; }
#grid { border-collapse: separate; border-spacing: 2px; width: auto; background: none; border: 0; }
#grid th, #grid td { border: 0; padding: 0; background: none; }
#grid th.group { font: 600 12px/1.4 system-ui, sans-serif; color: var(--muted); text-align: center;
  border-bottom: 2px solid var(--line); padding: 0 2px 2px; white-space: nowrap; }
#grid th.chain { vertical-align: bottom; padding: 6px 0 4px; }
#grid th.chain span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap;
  font: 12px/26px ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--ink);
  display: inline-block; cursor: help; }
#grid th.chain.incomplete span { color: #9a5b00; }
#grid th.family { text-align: right; font: 13px/24px system-ui, sans-serif; padding-right: 8px;
  white-space: nowrap; }
.c, .swatch { width: 26px; min-width: 26px; height: 24px; text-align: center;
  font: 600 12px/24px ui-monospace, SFMono-Regular, Menlo, monospace; border-radius: 4px;
  color: #1d2330; }
#grid td.c { cursor: pointer; }
.swatch { display: inline-block; }
.o-preserved.c, .o-preserved.swatch { color: #2f6b40; }
.o-broken.c, .o-broken.swatch { color: #fff; }
.o-none.c { background: #f1f2f5; color: #9aa3b2; cursor: default; }
#grid td.c:hover { outline: 2px solid #5d6679; }
#grid td.c:focus-visible { outline: 3px solid #1f3b8a; }
#grid td.c.sel { outline: 3px solid #1d2330; outline-offset: 1px; }
#grid td.c.dim { opacity: .16; }
#grid td.c.hit { box-shadow: 0 0 0 3px #1f3b8a; }
#count { font-size: 13px; color: var(--muted); }
#details { margin: 16px 0 0; }
#hint { color: var(--muted); font-size: 14px; }
.detail { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.detail h3 { font-size: 17px; margin: 0 0 2px; }
.detail h4 { font-size: 14px; margin: 14px 0 6px; }
.detail table { width: auto; margin: 6px 0; }
.detail .obs { margin: 0 0 12px; }
.obs h4 { margin: 0 0 8px; font-weight: 600; }
.obs h4 .id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-weight: 400; }
.refused .error { font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; color: #8a1f1f;
  overflow-wrap: anywhere; }
.trail { margin: 8px 0 0; font-size: 13px; }
.trail .label { font-size: 12px; color: var(--muted); text-transform: uppercase;
  letter-spacing: .04em; }
.trail ol { margin: 4px 0 0; padding-left: 22px; }
.trail li { margin: 2px 0; }
.trail .text { font-size: 13px; }
.hop-name { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-weight: 600; }
.trail .blamed .hop-name, tr.blamed .hop-name { color: #b3261e; }
.trail .received mark, .trail mark { background: var(--ins); }
.error { color: #8a1f1f; }
.kind.failure { background: #ffe1e1; border-color: #f3b0b0; color: #8a1f1f; }
button.pick { font: 12px/1.6 ui-monospace, SFMono-Regular, Menlo, monospace; background: #fff4e0;
  border: 1px solid #f0c987; border-radius: 4px; padding: 0 5px; cursor: pointer; }
button.pick.on { background: #1f3b8a; color: #fff; border-color: #1f3b8a; }
.blame-chain { margin: 0 0 16px; }
.blame-chain h3 { font-size: 15px; margin: 0 0 4px; }
"""

SCRIPT = """
(function () {
  'use strict';
  var group = document.getElementById('f-group');
  var kind = document.getElementById('f-kind');
  var count = document.getElementById('count');
  var hint = document.getElementById('hint');
  var grid = document.getElementById('grid');
  var cols = Array.prototype.slice.call(grid.querySelectorAll('.col'));
  var cells = Array.prototype.slice.call(grid.querySelectorAll('td.c'));
  var picks = Array.prototype.slice.call(document.querySelectorAll('button.pick'));
  var details = {};
  Array.prototype.forEach.call(document.querySelectorAll('#details section.detail'), function (s) {
    details[s.getAttribute('data-chain') + '\\n' + s.getAttribute('data-family')] = s;
  });
  var state = {group: '', kind: '', chain: '', family: ''};
  function parse() {
    var out = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (pair) {
      var i = pair.indexOf('=');
      if (i <= 0) { return; }
      try {
        out[decodeURIComponent(pair.slice(0, i))] = decodeURIComponent(pair.slice(i + 1));
      } catch (e) { /* a malformed part of the fragment is ignored */ }
    });
    return out;
  }
  function choose(select, value) {
    if (!select) { return ''; }
    select.value = value || '';
    if (select.value !== (value || '')) { select.value = ''; }
    return select.value;
  }
  function apply() {
    var w = parse();
    var g = choose(group, w.group), k = choose(kind, w.kind);
    var open = details[(w.chain || '') + '\\n' + (w.family || '')] || null;
    state = {group: g, kind: k, chain: open ? w.chain : '', family: open ? w.family : ''};
    cols.forEach(function (el) { el.hidden = !!g && el.getAttribute('data-group') !== g; });
    var hits = 0, chains = {};
    cells.forEach(function (td) {
      var ks = (td.getAttribute('data-kinds') || '').split(' ');
      var hit = !!k && ks.indexOf(k) >= 0;
      var sel = !!open && td.getAttribute('data-chain') === state.chain &&
        td.getAttribute('data-family') === state.family;
      td.classList.toggle('hit', hit);
      td.classList.toggle('dim', !!k && !hit);
      td.classList.toggle('sel', sel);
      td.setAttribute('aria-pressed', sel ? 'true' : 'false');
      if (hit && !td.hidden) { hits += 1; chains[td.getAttribute('data-chain')] = true; }
    });
    Object.keys(details).forEach(function (key) { details[key].hidden = details[key] !== open; });
    hint.hidden = !!open;
    picks.forEach(function (b) {
      b.classList.toggle('on', !!k && b.getAttribute('data-kind') === k);
    });
    var n = Object.keys(chains).length;
    count.textContent = !k ? '' : k + ': seen in ' + hits + ' cell' + (hits === 1 ? '' : 's') +
      ' of ' + n + ' chain' + (n === 1 ? '' : 's');
    document.body.setAttribute('data-state',
      'group=' + g + ';kind=' + k + ';open=' + (open ? 1 : 0));
    return open;
  }
  function go(next) {
    var parts = [];
    ['group', 'kind', 'chain', 'family'].forEach(function (key) {
      if (next[key]) { parts.push(key + '=' + encodeURIComponent(next[key])); }
    });
    var hash = parts.join('&');
    if (location.hash.replace(/^#/, '') !== hash) {
      history.pushState(null, '', hash ? '#' + hash : location.pathname + location.search);
    }
    return apply();
  }
  function openCell(td) {
    var next = {group: state.group, kind: state.kind,
      chain: td.getAttribute('data-chain'), family: td.getAttribute('data-family')};
    if (next.chain === state.chain && next.family === state.family) {
      next.chain = '';
      next.family = '';
    }
    var open = go(next);
    if (open) { open.scrollIntoView({block: 'nearest'}); }
  }
  grid.addEventListener('click', function (event) {
    var td = event.target.closest ? event.target.closest('td.c') : null;
    if (td && !td.classList.contains('o-none')) { openCell(td); }
  });
  grid.addEventListener('keydown', function (event) {
    var td = event.target;
    var key = event.key === 'Enter' || event.key === ' ';
    if (key && td.classList && td.classList.contains('c') && !td.classList.contains('o-none')) {
      event.preventDefault();
      openCell(td);
    }
  });
  function change() {
    var g = group ? group.value : '';
    go({group: g, kind: kind.value, chain: state.chain, family: state.family});
  }
  if (group) { group.addEventListener('change', change); }
  kind.addEventListener('change', change);
  picks.forEach(function (b) {
    b.addEventListener('click', function () {
      var k = b.getAttribute('data-kind');
      k = state.kind === k ? '' : k;
      go({group: state.group, kind: k, chain: state.chain, family: state.family});
      grid.scrollIntoView({block: 'nearest'});
    });
  });
  window.addEventListener('hashchange', apply);
  window.addEventListener('popstate', apply);
  apply();
})();
"""
