/// The page's style sheet: system fonts, one accent colour, cards and tag chips.
enum PageStyle {
    static let css = #"""
        :root {
          --accent: #4f46e5; --accent-soft: #eef2ff; --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb;
          --page: #f5f6fa; --card: #ffffff; --danger: #dc2626; --done: #9ca3af; --radius: 10px;
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
          color: var(--ink); background: var(--page);
        }
        * { box-sizing: border-box; }
        body { margin: 0; }
        button, input, select { font: inherit; color: inherit; }
        .top {
          display: flex; align-items: baseline; justify-content: space-between; flex-wrap: wrap; gap: .5rem;
          padding: 1.1rem 2rem; background: linear-gradient(90deg, #4338ca, #6d28d9); color: #fff;
        }
        .brand { display: flex; align-items: center; gap: .7rem; }
        .logo { width: 1.3rem; height: 1.3rem; border-radius: 5px; background: #fff; opacity: .9;
          box-shadow: inset 0 0 0 4px #a5b4fc; }
        .top h1 { margin: 0; font-size: 1.5rem; letter-spacing: .01em; }
        .subtitle { margin: 0; opacity: .85; font-size: .9rem; }
        .subtitle a { color: #fff; }
        .layout { display: grid; grid-template-columns: 220px 1fr; gap: 1.5rem; max-width: 1100px;
          margin: 1.5rem auto; padding: 0 1.5rem; }
        @media (max-width: 760px) { .layout { grid-template-columns: 1fr; } }
        .sidebar h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .08em; color: var(--muted);
          margin: .4rem 0 .6rem; }
        #tag-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: .25rem; }
        .tag-filter { width: 100%; display: flex; justify-content: space-between; align-items: center;
          border: 0; background: transparent; padding: .45rem .7rem; border-radius: 8px; cursor: pointer; text-align: left; }
        .tag-filter:hover:not(:disabled) { background: #e9eaf3; color: var(--ink); }
        .tag-filter.active, .tag-filter.active:hover:not(:disabled) { background: var(--accent); color: #fff; }
        .tag-filter .count { font-size: .8rem; opacity: .75; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius);
          box-shadow: 0 1px 2px rgba(0,0,0,.04); }
        .add { display: flex; gap: .5rem; padding: .75rem; }
        .add #new-title { flex: 3; }
        .add #new-tags { flex: 2; }
        input, select { border: 1px solid #d1d5db; border-radius: 8px; padding: .55rem .7rem; background: #fff; min-width: 0; }
        input:focus, select:focus { outline: 2px solid var(--accent); outline-offset: -1px; border-color: transparent; }
        button { border: 1px solid #d1d5db; background: #fff; border-radius: 8px; padding: .5rem .9rem; cursor: pointer; }
        button:hover:not(:disabled) { border-color: var(--accent); color: var(--accent); }
        button:disabled { opacity: .45; cursor: default; }
        button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
        button.primary:hover { filter: brightness(1.1); color: #fff; }
        button.link { border: 0; background: none; color: var(--accent); padding: .3rem 0; }
        .toolbar { display: flex; gap: .75rem; align-items: center; margin: 1rem 0 .75rem; flex-wrap: wrap; }
        #search { flex: 1; min-width: 12rem; }
        .filter-note { background: var(--accent-soft); color: var(--accent); border-radius: 999px; padding: .3rem .8rem;
          font-size: .85rem; }
        .filter-note button { border: 0; background: none; padding: 0 0 0 .4rem; color: inherit; }
        .page-size { color: var(--muted); font-size: .85rem; display: flex; gap: .4rem; align-items: center; }
        .message { background: #fef2f2; color: #991b1b; border: 1px solid #fecaca; border-radius: 8px; padding: .6rem .8rem; }
        .todos { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: .5rem; }
        .todo { display: flex; gap: .8rem; align-items: flex-start; padding: .8rem 1rem; background: var(--card);
          border: 1px solid var(--line); border-radius: var(--radius); }
        .todo .toggle { width: 1.2rem; height: 1.2rem; margin-top: .15rem; accent-color: var(--accent); cursor: pointer; }
        .todo .body { flex: 1; min-width: 0; }
        .todo .title { font-weight: 550; word-break: break-word; }
        .todo.done .title { text-decoration: line-through; color: var(--done); }
        .meta { display: flex; flex-wrap: wrap; gap: .4rem .8rem; align-items: center; margin-top: .35rem;
          font-size: .82rem; color: var(--muted); }
        .tags { display: flex; flex-wrap: wrap; gap: .3rem; }
        .chip { display: inline-flex; align-items: center; gap: .2rem; background: var(--accent-soft); color: var(--accent);
          border-radius: 999px; padding: .1rem .25rem .1rem .6rem; font-size: .8rem; }
        .chip button { border: 0; background: none; padding: 0 .3rem; line-height: 1; color: inherit; font-size: .95rem; }
        .place::before { content: ""; display: inline-block; width: .55rem; height: .55rem; margin-right: .35rem;
          border-radius: 50% 50% 50% 0; transform: rotate(-45deg); background: #f97316; }
        .actions { display: flex; gap: .35rem; flex-wrap: wrap; justify-content: flex-end; }
        .actions button { padding: .3rem .65rem; font-size: .85rem; }
        .actions .danger:hover { color: var(--danger); border-color: var(--danger); }
        .tag-form { display: flex; gap: .4rem; margin-top: .5rem; }
        .tag-form input { padding: .3rem .6rem; font-size: .85rem; }
        .tag-form button { padding: .3rem .65rem; font-size: .85rem; }
        .empty { text-align: center; color: var(--muted); padding: 2rem; border: 1px dashed #d1d5db; border-radius: var(--radius); }
        .pager { display: flex; justify-content: space-between; align-items: center; margin-top: 1rem; color: var(--muted);
          font-size: .9rem; }
        dialog { border: 0; border-radius: 14px; padding: 0; width: min(520px, 92vw); box-shadow: 0 20px 50px rgba(0,0,0,.25); }
        dialog::backdrop { background: rgba(17, 24, 39, .45); }
        #editor-form { display: flex; flex-direction: column; gap: .8rem; padding: 1.3rem 1.5rem; }
        #editor-form h2 { margin: 0 0 .2rem; font-size: 1.15rem; }
        #editor-form label { display: flex; flex-direction: column; gap: .25rem; font-size: .85rem; color: var(--muted); }
        #editor-form input { color: var(--ink); }
        fieldset { border: 1px solid var(--line); border-radius: 10px; padding: .6rem .9rem .4rem; }
        legend { font-size: .85rem; color: var(--muted); padding: 0 .3rem; }
        .grid { display: grid; grid-template-columns: 1fr 1fr; gap: .6rem; }
        .buttons { display: flex; justify-content: flex-end; gap: .5rem; }
        [hidden] { display: none !important; }
        """#
}
