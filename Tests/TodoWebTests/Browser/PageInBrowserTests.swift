import Foundation
import Testing
import TodoKit

/// The page in a real headless Chromium, driven through WebDriver as a person would use it:
/// type, click, read what the page shows after each step (and what the store holds).
@Suite(
    "The page in a browser",
    .enabled(if: Chromium.isInstalled || Chromium.isRequired, Comment(rawValue: Chromium.missingNotice)),
    .timeLimit(.minutes(5))
)
struct PageInBrowserTests {
    /// A to-do as the page shows it, read from the DOM.
    struct Item: Decodable, Equatable {
        let id: String
        let title: String
        let done: Bool
        let checked: Bool
        let tags: [String]
        let location: String?
    }

    /// What the page shows, read from the DOM in one script.
    struct View: Decodable {
        let ready: Bool
        let items: [Item]
        let pageInfo: String
        let tagFilters: [String]
        let activeFilter: String?
        let filterNote: String?
        let message: String?
        let editorOpen: Bool

        var titles: [String] { items.map(\.title) }
    }

    static let readView = """
        const text = (node) => node ? node.textContent.trim() : null;
        const shown = (node) => node && !node.hidden ? text(node) : null;
        return {
          ready: document.body.dataset.state === "ready",
          items: [...document.querySelectorAll('[data-testid="todo-item"]')].map((li) => ({
            id: li.dataset.id,
            title: text(li.querySelector('[data-testid="todo-title"]')),
            done: li.classList.contains("done"),
            checked: li.querySelector('[data-testid="todo-toggle"]').checked,
            tags: [...li.querySelectorAll('[data-testid="todo-tag"] > span')].map(text),
            location: text(li.querySelector('[data-testid="todo-location"]')),
          })),
          pageInfo: text(document.getElementById("page-info")),
          tagFilters: [...document.querySelectorAll('[data-testid="tag-filter"]')].map((b) => b.dataset.tagTitle),
          activeFilter: document.querySelector(".tag-filter.active")?.dataset.tagTitle ?? null,
          filterNote: shown(document.getElementById("filter-note")),
          message: shown(document.getElementById("message")),
          editorOpen: document.getElementById("editor").open,
        };
        """

    @Test("add, search, tag, filter by the tag, complete, locate, page and delete, checking the page after each step")
    func workTheList() async throws {
        guard let chromium = Chromium.browser, let chromedriver = Chromium.driver else {
            Issue.record("STRATA_REQUIRE_BROWSER=1, but Chromium or chromedriver is missing: \(Chromium.missingNotice)")
            return
        }
        let started = Date()
        try await withServer(sample: true) { api in
            let driver = try await ChromeDriverProcess(executable: chromedriver)
            do {
                let browser = try await WebDriver.startSession(port: driver.port, chromium: chromium)
                try await Self.steps(browser, api)
                await browser.quit()
            } catch {
                await driver.stop()
                throw error
            }
            await driver.stop()
        }
        print("The browser test took \(String(format: "%.1f", Date().timeIntervalSince(started))) s.")
    }

    private static func steps(_ browser: WebDriver, _ api: APIClient) async throws {
        let title = "Order açaí bowls for the team"
        try await browser.open(api.base)
        var view = try await waitFor(browser, "the sample list") { $0.ready && $0.items.count == 7 }
        #expect(view.pageInfo == "Page 1 of 1 · 7 to-dos")
        #expect(view.tagFilters == ["All to-dos", "errands", "home", "work"])

        // Add.
        try await browser.type(title, into: try await browser.find("#new-title"))
        try await browser.type("food", into: try await browser.find("#new-tags"))
        try await browser.click(try await browser.find("#add-button"))
        view = try await waitFor(browser, "the new to-do at the top") { $0.ready && $0.titles.first == title }
        let added = try #require(view.items.first)
        #expect(added.tags == ["food"] && !added.done && added.location == nil)
        #expect(view.pageInfo == "Page 1 of 1 · 8 to-dos")
        #expect(try await browser.property("value", of: try await browser.find("#new-title")) == "")
        let id = try #require(UUID(uuidString: added.id))
        #expect(try await api.services.todos.todo(id: id).title == title)
        let item = "[data-testid=\"todo-item\"][data-id=\"\(added.id)\"]"

        // Search, ignoring case and accents.
        try await browser.type("ACAI", into: try await browser.find("#search"))
        view = try await waitFor(browser, "the search result") { $0.ready && $0.titles == [title] }
        #expect(view.pageInfo == "Page 1 of 1 · 1 to-do")

        // Tag.
        try await browser.click(try await browser.find("\(item) [data-testid=\"tag-button\"]"))
        try await browser.type("urgent-e2e", into: try await browser.find("\(item) [data-testid=\"tag-input\"]"))
        try await browser.click(try await browser.find("\(item) [data-testid=\"tag-submit\"]"))
        view = try await waitFor(browser, "the new tag") { $0.ready && $0.items.first?.tags == ["food", "urgent-e2e"] }
        #expect(view.tagFilters.contains("urgent-e2e"))

        // Clear the search, then filter by the tag.
        try await browser.type(String(repeating: WebDriver.Keys.backspace, count: 4), into: try await browser.find("#search"))
        view = try await waitFor(browser, "the whole list again") { $0.ready && $0.items.count == 8 }
        try await browser.click(try await browser.find("[data-testid=\"tag-filter\"][data-tag-title=\"urgent-e2e\"]"))
        view = try await waitFor(browser, "the tag's to-dos") { $0.ready && $0.activeFilter == "urgent-e2e" }
        #expect(view.titles == [title])
        #expect(view.filterNote?.hasPrefix("Tag: urgent-e2e") == true)
        #expect(view.pageInfo == "Page 1 of 1 · 1 to-do")

        // Complete.
        try await browser.click(try await browser.find("\(item) [data-testid=\"todo-toggle\"]"))
        view = try await waitFor(browser, "the to-do done") { $0.ready && $0.items.first?.done == true }
        #expect(view.items.first?.checked == true)
        #expect(try await api.services.todos.todo(id: id).completedAt != nil)

        // Locate, through the editor.
        try await browser.click(try await browser.find("\(item) [data-testid=\"locate-button\"]"))
        _ = try await waitFor(browser, "the editor") { $0.editorOpen }
        try await browser.type("-22.9519", into: try await browser.find("#edit-latitude"))
        try await browser.type("-43.2105", into: try await browser.find("#edit-longitude"))
        try await browser.type("Cristo Redentor", into: try await browser.find("#edit-place"))
        try await browser.click(try await browser.find("#edit-save"))
        view = try await waitFor(browser, "the place") { $0.ready && !$0.editorOpen && $0.items.first?.location != nil }
        #expect(view.items.first?.location == "Cristo Redentor · -22.9519, -43.2105")
        let location = try #require(try await api.services.todos.todo(id: id).location)
        #expect(location.latitude == -22.9519 && location.longitude == -43.2105 && location.placeName == "Cristo Redentor")

        // Back to every to-do, and a picture of the page (kept where STRATA_SCREENSHOT says).
        try await browser.click(try await browser.find("[data-testid=\"tag-filter\"][data-tag-id=\"\"]"))
        view = try await waitFor(browser, "every to-do") { $0.ready && $0.items.count == 8 && $0.activeFilter == "All to-dos" }
        #expect(
            view.items.first { $0.id == added.id }
                == Item(
                    id: added.id, title: title, done: true, checked: true, tags: ["food", "urgent-e2e"],
                    location: "Cristo Redentor · -22.9519, -43.2105"))
        let png = try await browser.screenshot()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        if let path = ProcessInfo.processInfo.environment["STRATA_SCREENSHOT"], !path.isEmpty {
            try png.write(to: URL(fileURLWithPath: path))
        }

        // Delete.
        try await browser.click(try await browser.find("\(item) [data-testid=\"delete-button\"]"))
        view = try await waitFor(browser, "the to-do gone") { $0.ready && $0.items.count == 7 }
        #expect(!view.items.contains { $0.id == added.id })
        #expect(view.pageInfo == "Page 1 of 1 · 7 to-dos")
        await #expect(throws: TodoKitError.todoNotFound(id)) { try await api.services.todos.todo(id: id) }

        // Page through, five at a time.
        try await browser.click(try await browser.find("#page-size option[value=\"5\"]"))
        view = try await waitFor(browser, "pages of five") { $0.ready && $0.items.count == 5 }
        #expect(view.pageInfo == "Page 1 of 2 · 7 to-dos")
        try await browser.click(try await browser.find("#next-page"))
        view = try await waitFor(browser, "the second page") { $0.ready && $0.items.count == 2 }
        #expect(view.pageInfo == "Page 2 of 2 · 7 to-dos")
        #expect(view.titles.last == "Renew the passport")
        #expect(view.message == nil)
    }

    /// Reads the page until `condition` holds; fails with the last view after 15 seconds.
    private static func waitFor(
        _ browser: WebDriver, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (View) -> Bool
    ) async throws -> View {
        let deadline = Date().addingTimeInterval(15)
        var view = try await browser.execute(readView, as: View.self)
        while !condition(view) {
            guard Date() < deadline else {
                Issue.record("The page never showed \(what); it shows \(view)", sourceLocation: sourceLocation)
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(100))
            view = try await browser.execute(readView, as: View.self)
        }
        return view
    }
}
