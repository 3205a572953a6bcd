/** The console's stylesheet (served as /console/assets/console.css): system fonts, no framework. */
export const STYLE_CSS = `
:root { --fg:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#fff; --soft:#f6f8fa; --accent:#0a58ca; --bad:#b42318; --ok:#1a7f37; --warn:#9a6700; }
* { box-sizing: border-box; }
body { margin:0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color:var(--fg); background:var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
.skip { position:absolute; left:-999px; top:0; background:#ffbf47; padding:.5rem; z-index:10; }
.skip:focus { left: .5rem; }
.top { display:flex; flex-wrap:wrap; align-items:center; gap:.5rem 1.5rem; padding:.5rem 1rem; border-bottom:1px solid var(--line); background:var(--soft); }
.brand { font-weight:700; }
.top nav ul { display:flex; flex-wrap:wrap; gap:.25rem 1rem; list-style:none; margin:0; padding:0; }
.top nav a { text-decoration:none; padding:.25rem 0; }
.top nav a[aria-current=page] { font-weight:700; border-bottom:2px solid var(--accent); }
.who { margin-left:auto; display:flex; gap:.75rem; align-items:center; }
.who form { margin:0; }
.role { color: var(--muted); }
main { padding: 1rem 1.25rem 3rem; max-width: 1400px; }
main:focus { outline:none; }
h1 { font-size:1.4rem; margin:.25rem 0 1rem; }
h2 { font-size:1.1rem; margin:1.5rem 0 .5rem; }
h3 { font-size:1rem; margin:1rem 0 .25rem; }
table { border-collapse: collapse; width:100%; margin:.5rem 0 1rem; }
/* A table wider than its column (a side column's, a tablet's) scrolls within its box; the page never scrolls sideways. */
.table-scroll { overflow-x:auto; margin:.5rem 0 1rem; }
.table-scroll > table { margin:0; }
.table-scroll.wide th:first-child, .table-scroll.wide td:first-child { position:sticky; left:0; background:var(--bg); }
.table-scroll.wide th:first-child { background:var(--soft); }
caption { text-align:left; font-weight:600; padding:.25rem 0; }
th, td { text-align:left; padding:.35rem .5rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { background: var(--soft); font-weight:600; }
td.num, th.num { text-align:right; font-variant-numeric: tabular-nums; }
form.narrow { max-width: 26rem; display:flex; flex-direction:column; gap:.35rem; }
form.inline { display:flex; flex-wrap:wrap; gap:.5rem; align-items:flex-end; margin:.5rem 0; }
form.inline > div { display:flex; flex-direction:column; }
form.stacked { display:flex; flex-direction:column; gap:.6rem; max-width: 48rem; margin:.5rem 0; }
form.stacked > div:not(.actions) { display:flex; flex-direction:column; align-items:stretch; }
form.stacked button { align-self:flex-start; }
fieldset.choices { border:1px solid var(--line); border-radius:4px; padding:.5rem .75rem; margin:0; display:grid; grid-template-columns: repeat(auto-fill, minmax(18rem, 1fr)); gap:.35rem 1rem; }
fieldset.choices legend { font-weight:600; font-size:.9rem; padding:0 .25rem; }
label.choice { display:flex; gap:.5rem; align-items:flex-start; font-weight:400; }
label.choice input { margin-top:.3rem; }
ul.plain { list-style:none; margin:0; padding:0; }
td.wrap { overflow-wrap:anywhere; }
label { font-weight:600; font-size:.9rem; }
input, select, textarea, button { font: inherit; padding:.4rem .5rem; border:1px solid var(--line); border-radius:4px; background:#fff; color:inherit; }
textarea { width:100%; min-height:5rem; }
textarea.code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; min-height: 16rem; font-size:.85rem; }
button { background: var(--accent); color:#fff; border-color: var(--accent); cursor:pointer; min-height:2.25rem; }
button.secondary { background:#fff; color:var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
button.link { background:none; border:none; color:var(--accent); text-decoration:underline; padding:0; min-height:auto; }
.notice { padding:.5rem .75rem; border-radius:4px; border:1px solid var(--line); }
.notice.error { border-color: var(--bad); color: var(--bad); background:#fff5f5; }
.notice.info { border-color: var(--accent); background:#f0f6ff; }
.tabs { display:flex; flex-wrap:wrap; gap:.5rem; list-style:none; padding:0; margin:.5rem 0; }
.tabs a { display:inline-block; padding:.25rem .6rem; border:1px solid var(--line); border-radius:999px; text-decoration:none; }
.tabs a[aria-current=true] { background: var(--accent); color:#fff; border-color: var(--accent); }
.badge { display:inline-block; padding:0 .45rem; border-radius:999px; font-size:.8rem; border:1px solid var(--line); background: var(--soft); }
.badge.critical, .badge.high, .badge.REJECT, .badge.reject { border-color: var(--bad); color: var(--bad); }
.badge.medium, .badge.REVIEW, .badge.review { border-color: var(--warn); color: var(--warn); }
.badge.APPROVE, .badge.approve, .badge.low { border-color: var(--ok); color: var(--ok); }
.grid { display:grid; grid-template-columns: minmax(0,2fr) minmax(0,1fr); gap: 1.5rem; }
.cards { display:grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; }
.card { border:1px solid var(--line); border-radius:6px; padding:.75rem 1rem; }
.card canvas { max-height: 260px; }
svg.plot { width:100%; height:auto; max-height: 260px; display:block; }
pre.code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:.85rem; overflow-x:auto; }
dl.facts { display:grid; grid-template-columns: max-content 1fr; gap:.2rem 1rem; margin:.5rem 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin:0; }
ol.timeline { list-style:none; padding:0; margin:0; border-left:2px solid var(--line); }
ol.timeline li { padding: .25rem 0 .5rem .75rem; }
ol.timeline time { color: var(--muted); font-size:.85rem; display:block; }
.muted { color: var(--muted); }
.errors li { font-family: ui-monospace, monospace; color: var(--bad); }
.pager { display:flex; gap:1rem; align-items:center; }
.actions { display:flex; flex-wrap:wrap; gap:.5rem; align-items:flex-end; }
.actions form { margin:0; display:flex; gap:.35rem; align-items:flex-end; flex-wrap:wrap; }
/* minmax(0,…): a chart's canvas, drawn at a wider width, would otherwise hold its column at that width. */
@media (max-width: 1100px) { .grid { grid-template-columns: minmax(0,1fr); } }
@media (max-width: 800px) { main { padding: .75rem; } table { font-size:.9rem; } .who { margin-left:0; } }
`;
