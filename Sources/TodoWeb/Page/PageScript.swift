/// The page's script: plain JavaScript over `fetch` and the JSON API. Every text from the
/// store goes into the page as text (`textContent`), never as markup.
enum PageScript {
    static let javascript = #"""
        "use strict";
        const state = { search: "", tagId: "", page: 1, pageSize: 10, tags: [], todos: [], total: 0, editing: null, serial: 0, version: 0 };
        const $ = (id) => document.getElementById(id);

        async function api(method, path, body) {
          const options = { method, headers: { "Accept": "application/json" } };
          if (body !== undefined) {
            options.headers["Content-Type"] = "application/json";
            options.body = JSON.stringify(body);
          }
          const response = await fetch(path, options);
          if (response.status === 204) return null;
          const data = await response.json().catch(() => null);
          if (!response.ok) {
            throw new Error(data && data.error ? data.error.message : `The server answered ${response.status}.`);
          }
          return data;
        }

        function element(tag, properties = {}, children = []) {
          const node = document.createElement(tag);
          for (const [key, value] of Object.entries(properties)) {
            if (key === "dataset") Object.assign(node.dataset, value);
            else if (key === "text") node.textContent = value;
            else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
            else if (key in node) node[key] = value;
            else node.setAttribute(key, value);
          }
          for (const child of children) if (child) node.append(child);
          return node;
        }

        function splitTags(text) {
          return text.split(",").map((tag) => tag.trim()).filter((tag) => tag.length > 0);
        }

        function showMessage(text) {
          const message = $("message");
          message.textContent = text;
          message.hidden = false;
          clearTimeout(showMessage.timer);
          showMessage.timer = setTimeout(() => { message.hidden = true; }, 8000);
        }

        // Runs a change, then reloads; a failure shows the server's sentence.
        async function change(work) {
          try {
            await work();
            $("message").hidden = true;
          } catch (error) {
            showMessage(error.message);
          }
          await refresh();
        }

        function placeText(location) {
          let text = location.placeName ? `${location.placeName} · ` : "";
          text += `${location.latitude}, ${location.longitude}`;
          if (location.altitude !== undefined && location.altitude !== null) text += ` · ${location.altitude} m`;
          return text;
        }

        function dateText(iso) {
          return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
        }

        function todoItem(todo) {
          const tagForm = element("form", { className: "tag-form", hidden: true, dataset: { testid: "tag-form" } }, [
            element("input", { placeholder: "Tags, comma separated", "aria-label": "Tags to add", dataset: { testid: "tag-input" } }),
            element("button", { type: "submit", text: "Add tags", dataset: { testid: "tag-submit" } }),
          ]);
          tagForm.addEventListener("submit", (event) => {
            event.preventDefault();
            const tags = splitTags(tagForm.querySelector("input").value);
            if (tags.length === 0) return;
            change(() => api("POST", `/api/todos/${todo.id}/tags`, { tags }));
          });
          const chips = todo.tags.map((tag) => element("span", { className: "chip", dataset: { testid: "todo-tag", tagId: tag.id } }, [
            element("span", { text: tag.title }),
            element("button", {
              type: "button", text: "×", title: `Remove the tag ${tag.title}`, "aria-label": `Remove the tag ${tag.title}`,
              dataset: { testid: "untag-button" },
              onclick: () => change(() => api("DELETE", `/api/todos/${todo.id}/tags/${tag.id}`)),
            }),
          ]));
          const done = todo.completedAt !== undefined && todo.completedAt !== null;
          return element("li", { className: done ? "todo done" : "todo", dataset: { testid: "todo-item", id: todo.id } }, [
            element("input", {
              type: "checkbox", className: "toggle", checked: done, "aria-label": "Done", dataset: { testid: "todo-toggle" },
              onchange: () => change(() => api("POST", `/api/todos/${todo.id}/${done ? "reopen" : "complete"}`)),
            }),
            element("div", { className: "body" }, [
              element("div", { className: "title", text: todo.title, dataset: { testid: "todo-title" } }),
              element("div", { className: "meta" }, [
                chips.length ? element("span", { className: "tags" }, chips) : null,
                todo.location ? element("span", { className: "place", text: placeText(todo.location), dataset: { testid: "todo-location" } }) : null,
                element("span", { text: done ? `Done ${dateText(todo.completedAt)}` : `Updated ${dateText(todo.updatedAt)}` }),
              ]),
              tagForm,
            ]),
            element("div", { className: "actions" }, [
              element("button", {
                type: "button", text: "Tag", dataset: { testid: "tag-button" },
                onclick: () => { tagForm.hidden = !tagForm.hidden; if (!tagForm.hidden) tagForm.querySelector("input").focus(); },
              }),
              element("button", { type: "button", text: "Locate", dataset: { testid: "locate-button" }, onclick: () => openEditor(todo, "edit-latitude") }),
              element("button", { type: "button", text: "Edit", dataset: { testid: "edit-button" }, onclick: () => openEditor(todo, "edit-title") }),
              element("button", {
                type: "button", text: "Delete", className: "danger", dataset: { testid: "delete-button" },
                onclick: () => change(() => api("DELETE", `/api/todos/${todo.id}`)),
              }),
            ]),
          ]);
        }

        // The list is drawn by to-do id: an item whose to-do is unchanged keeps its element, and
        // one that changed gets a new element that takes over what the person was typing in the
        // old one. Elements are moved only where the order changed, so that the one being typed
        // in keeps its focus while other pages' changes arrive.
        const drawn = new Map();

        function keepTyping(old, replacement) {
          const oldForm = old.querySelector('[data-testid="tag-form"]');
          const newForm = replacement.querySelector('[data-testid="tag-form"]');
          newForm.hidden = oldForm.hidden;
          const oldInput = oldForm.querySelector("input");
          const newInput = newForm.querySelector("input");
          newInput.value = oldInput.value;
          if (document.activeElement === oldInput) {
            return () => {
              newInput.focus();
              newInput.setSelectionRange(oldInput.selectionStart, oldInput.selectionEnd);
            };
          }
          return null;
        }

        function drawItems(todos) {
          const list = $("todo-list");
          const refocus = [];
          const items = todos.map((todo) => {
            const json = JSON.stringify(todo);
            const old = drawn.get(todo.id);
            if (old && old.json === json) return { id: todo.id, node: old.node, json };
            const node = todoItem(todo);
            if (old) {
              const focus = keepTyping(old.node, node);
              if (focus) refocus.push(focus);
            }
            return { id: todo.id, node, json };
          });
          const kept = new Set(items.map((item) => item.node));
          for (const child of [...list.children]) if (!kept.has(child)) child.remove();
          items.forEach((item, index) => {
            if (list.children[index] !== item.node) list.insertBefore(item.node, list.children[index] ?? null);
          });
          drawn.clear();
          for (const item of items) drawn.set(item.id, item);
          for (const focus of refocus) focus();
        }

        function renderTodos(list) {
          state.todos = list.todos;
          drawItems(list.todos);
          showCounts(list.total, list.page, list.pageCount);
        }

        function showCounts(total, page = state.page, pageCount = Math.max(1, Math.ceil(total / state.pageSize))) {
          state.total = total;
          const empty = $("empty");
          empty.hidden = total > 0;
          empty.textContent = state.search || state.tagId ? "No to-dos match." : "No to-dos yet: add one above.";
          const noun = total === 1 ? "to-do" : "to-dos";
          $("page-info").textContent = `Page ${page} of ${pageCount} · ${total} ${noun}`;
          $("prev-page").disabled = page <= 1;
          $("next-page").disabled = page >= pageCount;
        }

        // Redrawn only when the tags or the chosen one changed: the refetch after another page's
        // change must not swap the buttons under a pointer about to click one.
        function renderTags() {
          const drawnTags = JSON.stringify([state.tagId, state.tags]);
          if (drawnTags === renderTags.drawn) return;
          renderTags.drawn = drawnTags;
          const filter = (id, title, count) => element("li", {}, [
            element("button", {
              type: "button", className: state.tagId === id ? "tag-filter active" : "tag-filter",
              dataset: { testid: "tag-filter", tagId: id, tagTitle: title },
              onclick: () => { state.tagId = id; state.page = 1; refresh(); },
            }, [element("span", { text: title }), count === null ? null : element("span", { className: "count", text: String(count) })]),
          ]);
          $("tag-list").replaceChildren(filter("", "All to-dos", null), ...state.tags.map((tag) => filter(tag.id, tag.title, tag.todoCount)));
          const note = $("filter-note");
          const current = state.tags.find((tag) => tag.id === state.tagId);
          note.hidden = !current;
          if (current) {
            note.replaceChildren(`Tag: ${current.title}`, element("button", {
              type: "button", text: "×", "aria-label": "Show every tag", dataset: { testid: "clear-tag-filter" },
              onclick: () => { state.tagId = ""; state.page = 1; refresh(); },
            }));
          }
        }

        // Loads the tags and the current page; answers to older loads are dropped, so that
        // quick typing in the search box never shows a stale list.
        async function refresh() {
          const serial = ++state.serial;
          document.body.dataset.state = "loading";
          try {
            state.tags = await api("GET", "/api/tags");
            if (state.tagId && !state.tags.some((tag) => tag.id === state.tagId)) state.tagId = "";
            const query = new URLSearchParams({ page: String(state.page), pageSize: String(state.pageSize) });
            if (state.search) query.set("search", state.search);
            if (state.tagId) query.set("tag", state.tagId);
            let list = await api("GET", `/api/todos?${query}`);
            if (list.page > list.pageCount) {
              state.page = list.pageCount;
              query.set("page", String(state.page));
              list = await api("GET", `/api/todos?${query}`);
            }
            if (serial !== state.serial) return;
            renderTags();
            renderTodos(list);
            document.body.dataset.state = "ready";
          } catch (error) {
            if (serial !== state.serial) return;
            showMessage(error.message);
            document.body.dataset.state = "ready";
          }
        }

        function openEditor(todo, focus) {
          state.editing = todo;
          $("edit-title").value = todo.title;
          $("edit-tags").value = todo.tags.map((tag) => tag.title).join(", ");
          const place = todo.location || {};
          $("edit-latitude").value = place.latitude ?? "";
          $("edit-longitude").value = place.longitude ?? "";
          $("edit-altitude").value = place.altitude ?? "";
          $("edit-place").value = place.placeName ?? "";
          $("editor-message").hidden = true;
          $("editor").showModal();
          $(focus).focus();
        }

        function number(id, name) {
          const text = $(id).value.trim();
          if (text === "") return undefined;
          const value = Number(text);
          if (!Number.isFinite(value)) throw new Error(`The ${name} must be a number.`);
          return value;
        }

        // The changes the editor holds, as a PATCH body with only what differs.
        function editorChanges(todo) {
          const changes = {};
          const title = $("edit-title").value.trim();
          if (title !== todo.title) changes.title = title;
          const tags = splitTags($("edit-tags").value);
          if (tags.join("\n") !== todo.tags.map((tag) => tag.title).join("\n")) changes.tags = tags;
          const latitude = number("edit-latitude", "latitude");
          const longitude = number("edit-longitude", "longitude");
          const altitude = number("edit-altitude", "altitude");
          const placeName = $("edit-place").value.trim();
          let location = null;
          if (latitude !== undefined || longitude !== undefined) {
            if (latitude === undefined || longitude === undefined) throw new Error("A location needs a latitude and a longitude.");
            location = { latitude, longitude };
            if (altitude !== undefined) location.altitude = altitude;
            if (placeName) location.placeName = placeName;
          }
          const old = todo.location;
          const same = old && location && old.latitude === location.latitude && old.longitude === location.longitude
            && (old.altitude ?? undefined) === location.altitude && (old.placeName ?? undefined) === location.placeName;
          if (!same && (old || location)) changes.location = location;
          return changes;
        }

        $("editor-form").addEventListener("submit", async (event) => {
          event.preventDefault();
          const todo = state.editing;
          try {
            const changes = editorChanges(todo);
            if (Object.keys(changes).length > 0) await api("PATCH", `/api/todos/${todo.id}`, changes);
            $("editor").close();
            $("message").hidden = true;
            await refresh();
          } catch (error) {
            $("editor-message").textContent = error.message;
            $("editor-message").hidden = false;
          }
        });
        $("edit-cancel").addEventListener("click", () => $("editor").close());
        $("edit-clear-location").addEventListener("click", () => {
          for (const id of ["edit-latitude", "edit-longitude", "edit-altitude", "edit-place"]) $(id).value = "";
        });

        $("add-form").addEventListener("submit", (event) => {
          event.preventDefault();
          const title = $("new-title").value.trim();
          if (!title) { showMessage("A title cannot be empty."); return; }
          const tags = splitTags($("new-tags").value);
          change(async () => {
            await api("POST", "/api/todos", { title, tags });
            $("new-title").value = "";
            $("new-tags").value = "";
            state.page = 1;
          });
        });

        $("search").addEventListener("input", () => {
          clearTimeout(state.searchTimer);
          state.searchTimer = setTimeout(() => {
            state.search = $("search").value.trim();
            state.page = 1;
            refresh();
          }, 200);
        });
        $("page-size").addEventListener("change", () => { state.pageSize = Number($("page-size").value); state.page = 1; refresh(); });
        $("prev-page").addEventListener("click", () => { state.page = Math.max(1, state.page - 1); refresh(); });
        $("next-page").addEventListener("click", () => { state.page += 1; refresh(); });

        // The live list: the server sends every change of the store (this page's own, other
        // pages', other programs' on the same server) as a "change" event with the to-dos'
        // new values. They are shown at once, then the page refetches its page of the list and
        // the tags, so that paging, counts and order agree with the server. After a lost
        // connection (a restarted server), EventSource reconnects by itself and the page
        // refetches, having perhaps missed changes meanwhile.
        function comparable(text) {
          return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
        }

        function shownHere(todo) {
          if (state.tagId && !todo.tags.some((tag) => tag.id === state.tagId)) return false;
          return !state.search || comparable(todo.title).includes(comparable(state.search));
        }

        function newestFirst(a, b) {
          if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
          if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
          return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
        }

        function applyChange(change) {
          const gone = new Set(change.deleted ?? []);
          const changed = new Map((change.updated ?? []).map((todo) => [todo.id, todo]));
          let todos = state.todos.filter((todo) => !gone.has(todo.id)).map((todo) => changed.get(todo.id) ?? todo);
          if (state.page === 1) {
            const shown = new Set(todos.map((todo) => todo.id));
            todos = todos.concat((change.inserted ?? []).filter((todo) => !shown.has(todo.id)));
          }
          todos = todos.filter(shownHere).sort(newestFirst).slice(0, state.pageSize);
          // The count as far as this page can tell (deletes of to-dos on other pages it cannot);
          // the refetch that follows has the server's, and until then the page says it is loading.
          const added = (change.inserted ?? []).filter(shownHere).length;
          const removed = state.todos.filter((todo) => gone.has(todo.id)).length;
          state.todos = todos;
          drawItems(todos);
          showCounts(Math.max(todos.length, state.total + added - removed));
          document.body.dataset.state = "loading";
          clearTimeout(state.liveTimer);
          state.liveTimer = setTimeout(refresh, 100);
        }

        function listen() {
          const source = new EventSource("/api/events");
          source.addEventListener("ready", () => {
            document.body.dataset.live = "on";
            if (state.listened) refresh();
            state.listened = true;
          });
          source.addEventListener("change", (event) => {
            const change = JSON.parse(event.data);
            state.version = change.version;
            document.body.dataset.version = String(change.version);
            applyChange(change);
          });
          source.addEventListener("error", () => {
            document.body.dataset.live = "off";
            // Closed for good (the server answered with an error): start again a little later.
            if (source.readyState === EventSource.CLOSED) setTimeout(listen, 2000);
          });
        }

        refresh();
        listen();
        """#
}
