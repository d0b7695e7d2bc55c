/// The page's markup; `HomePage` puts the style and the script in their places.
enum PageMarkup {
    static let document = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>To-dos · Strata</title>
        <link rel="icon" href="data:,">
        <style>
        /*STYLE*/
        </style>
        </head>
        <body data-state="loading">
        <header class="top">
          <div class="brand">
            <span class="logo" aria-hidden="true"></span>
            <h1>To-dos</h1>
          </div>
          <p class="subtitle">Core Data on Linux, with <a href="/api/todos">a JSON API</a> under <code>/api</code></p>
        </header>
        <main class="layout">
          <aside class="sidebar" aria-label="Tags">
            <h2>Tags</h2>
            <ul id="tag-list" data-testid="tag-list"></ul>
          </aside>
          <section class="content">
            <form id="add-form" class="card add" data-testid="add-form" autocomplete="off">
              <input id="new-title" data-testid="new-title" placeholder="What needs doing?" maxlength="500"
                aria-label="Title of the new to-do">
              <input id="new-tags" data-testid="new-tags" placeholder="Tags, comma separated" aria-label="Tags">
              <button id="add-button" data-testid="add-button" class="primary" type="submit">Add</button>
            </form>
            <div class="toolbar">
              <input id="search" data-testid="search" type="search" placeholder="Search titles (case and accents ignored)"
                aria-label="Search">
              <span id="filter-note" data-testid="filter-note" class="filter-note" hidden></span>
              <label class="page-size">Per page
                <select id="page-size" data-testid="page-size">
                  <option value="5">5</option><option value="10" selected>10</option><option value="20">20</option>
                  <option value="50">50</option>
                </select>
              </label>
            </div>
            <div id="message" data-testid="message" class="message" role="alert" hidden></div>
            <ul id="todo-list" data-testid="todo-list" class="todos"></ul>
            <p id="empty" data-testid="empty" class="empty" hidden></p>
            <nav class="pager" aria-label="Pages">
              <button id="prev-page" data-testid="prev-page" type="button">&larr; Newer</button>
              <span id="page-info" data-testid="page-info"></span>
              <button id="next-page" data-testid="next-page" type="button">Older &rarr;</button>
            </nav>
          </section>
        </main>
        <dialog id="editor" data-testid="editor">
          <form id="editor-form" method="dialog" autocomplete="off">
            <h2>Edit to-do</h2>
            <label>Title <input id="edit-title" data-testid="edit-title" maxlength="500"></label>
            <label>Tags <input id="edit-tags" data-testid="edit-tags" placeholder="Comma separated"></label>
            <fieldset>
              <legend>Location</legend>
              <div class="grid">
                <label>Latitude <input id="edit-latitude" data-testid="edit-latitude" inputmode="decimal"
                  placeholder="-90 to 90"></label>
                <label>Longitude <input id="edit-longitude" data-testid="edit-longitude" inputmode="decimal"
                  placeholder="-180 to 180"></label>
                <label>Altitude (m) <input id="edit-altitude" data-testid="edit-altitude" inputmode="decimal"
                  placeholder="optional"></label>
                <label>Place <input id="edit-place" data-testid="edit-place" placeholder="optional"></label>
              </div>
              <button id="edit-clear-location" data-testid="edit-clear-location" type="button" class="link">
                Clear the location</button>
            </fieldset>
            <p id="editor-message" data-testid="editor-message" class="message" role="alert" hidden></p>
            <div class="buttons">
              <button id="edit-cancel" data-testid="edit-cancel" type="button">Cancel</button>
              <button id="edit-save" data-testid="edit-save" class="primary" type="submit">Save</button>
            </div>
          </form>
        </dialog>
        <script>
        /*SCRIPT*/
        </script>
        </body>
        </html>
        """#
}
