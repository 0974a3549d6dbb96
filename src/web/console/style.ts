/** The console's only stylesheet, served from the same origin so the CSP can forbid inline styles. */
export const CONSOLE_CSS = `
:root {
  --bg: #f6f7f9; --panel: #fff; --ink: #1d2330; --muted: #5d6675; --line: #dde1e8;
  --accent: #2456c9; --accent-ink: #fff; --danger: #b42318; --ok: #1a7f4b; --warn: #a15c07;
  --radius: 10px;
  color-scheme: light;
}
* { box-sizing: border-box; }
html { font-size: 16px; }
body {
  margin: 0; background: var(--bg); color: var(--ink); line-height: 1.5;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--accent); }
a:hover { text-decoration-thickness: 2px; }
header.top {
  background: var(--panel); border-bottom: 1px solid var(--line);
  display: flex; align-items: center; gap: 1.5rem; padding: .75rem 1.5rem; flex-wrap: wrap;
}
.brand { font-weight: 700; font-size: 1.15rem; color: var(--ink); text-decoration: none; letter-spacing: .02em; }
.brand::before { content: "\\25B2"; color: var(--accent); margin-right: .4rem; font-size: .9em; }
nav.main { display: flex; gap: 1rem; flex-wrap: wrap; flex: 1; }
nav.main a { color: var(--muted); text-decoration: none; padding: .25rem 0; }
nav.main a:hover, nav.main a[aria-current="page"] { color: var(--ink); border-bottom: 2px solid var(--accent); }
.who { display: flex; align-items: center; gap: .75rem; color: var(--muted); font-size: .9rem; }
.who form { margin: 0; }
main { max-width: 62rem; margin: 2rem auto; padding: 0 1.25rem; }
main.narrow { max-width: 28rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
.sub { color: var(--muted); margin-top: -.5rem; margin-bottom: 1.5rem; }
.panel {
  background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius);
  padding: 1.25rem 1.5rem; margin-bottom: 1.25rem;
}
.panel.danger { border-color: #f1c0bb; }
.grid { display: grid; gap: 1.25rem; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); }
label { display: block; font-weight: 600; margin: .75rem 0 .3rem; }
label.check { display: flex; gap: .5rem; align-items: center; font-weight: 500; }
input[type=text], input[type=email], input[type=password], input[type=number], textarea, select {
  width: 100%; padding: .55rem .7rem; border: 1px solid #c5cbd6; border-radius: 8px; font: inherit; background: #fff;
}
input:focus-visible, textarea:focus-visible, select:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid #9db7f0; outline-offset: 1px; }
input[type=checkbox] { width: 1.1rem; height: 1.1rem; }
textarea { min-height: 6rem; resize: vertical; }
fieldset { border: 1px solid #d5d9e0; border-radius: 6px; padding: .75rem 1rem; }
.hint { color: var(--muted); font-size: .875rem; margin: .25rem 0 0; }
button, .button {
  display: inline-block; font: inherit; font-weight: 600; cursor: pointer; text-decoration: none;
  padding: .5rem 1rem; border-radius: 8px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-ink);
}
button.secondary, .button.secondary { background: #fff; color: var(--ink); border-color: #c5cbd6; }
button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
button.link { background: none; border: none; color: var(--accent); padding: 0; font-weight: 500; }
.actions { display: flex; gap: .75rem; flex-wrap: wrap; align-items: center; margin-top: 1rem; }
.inline { display: inline; margin: 0; }
.row { display: flex; gap: .5rem; align-items: flex-end; flex-wrap: wrap; }
.row > div { min-width: 10rem; }
input[type=number] { max-width: 12rem; }
table { width: 100%; border-collapse: collapse; font-size: .925rem; }
th, td { text-align: left; padding: .55rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; }
tr:last-child td { border-bottom: none; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .875em; }
.badge {
  display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .78rem; font-weight: 600;
  background: #eef0f4; color: var(--muted); white-space: nowrap;
}
.badge.on { background: #dcf3e6; color: var(--ok); }
.badge.off { background: #eef0f4; color: var(--muted); }
.badge.warn { background: #fdf1d8; color: #8a5a00; }
.badge.bad { background: #fde4e1; color: var(--danger); }
.notice { padding: .75rem 1rem; border-radius: 8px; margin: 0 0 1.25rem; border: 1px solid; }
.notice.error { background: #fdf0ee; border-color: #f1c0bb; color: #7a1a12; }
.notice.ok { background: #ebf7f0; border-color: #b5e0c7; color: #11583a; }
.notice.info { background: #eef3fd; border-color: #c4d4f5; color: #1d3f8f; }
.secret {
  display: block; padding: .75rem; background: #10151f; color: #e6edf7; border-radius: 8px;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; user-select: all;
}
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1.25rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
dl.facts dd ul { margin: 0; padding-left: 1.1rem; }
.claims > .hint { margin: 0 0 .75rem; }
.claims h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
.claims { border-left: 4px solid #f0c36d; background: #fffaf0; }
.claims h2 small { font-weight: 500; color: var(--warn); }
.code { margin: .1rem 0 1rem; font-size: 2rem; font-weight: 700; letter-spacing: .12em; font-family: ui-monospace, Menlo, Consolas, monospace; }
.empty { color: var(--muted); text-align: center; padding: 2rem 1rem; }
footer { color: var(--muted); font-size: .8rem; text-align: center; padding: 2rem 1rem; }
`;

/** A small cairn of stones, so browsers do not ask for a /favicon.ico that does not exist. */
export const CONSOLE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<ellipse cx="16" cy="26" rx="12" ry="4.5" fill="#2456c9"/>
<ellipse cx="16" cy="17.5" rx="8.5" ry="4" fill="#4a76de"/>
<ellipse cx="16" cy="10" rx="5.5" ry="3.2" fill="#7d9ceb"/>
<ellipse cx="16" cy="4.5" rx="3" ry="2" fill="#aec2f3"/>
</svg>`;
