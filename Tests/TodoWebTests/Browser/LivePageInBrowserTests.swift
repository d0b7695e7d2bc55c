import Foundation
import Testing
import TodoKit
import TodoWeb

/// The live list in two headless Chromium windows on one server: what is done in one window
/// shows in the other within a second, without a reload and without losing what the other
/// window's person was typing; a change saved outside any page shows in both; and a page
/// whose server restarts reconnects and catches up.
@Suite(
    "The live page in two browser windows",
    .enabled(if: Chromium.isInstalled || Chromium.isRequired, Comment(rawValue: Chromium.missingNotice)),
    .timeLimit(.minutes(5))
)
struct LivePageInBrowserTests {
    /// What a window shows, read from the DOM in one script.
    struct View: Decodable {
        struct Item: Decodable {
            let id: String
            let title: String
            let done: Bool
        }

        let ready: Bool
        let live: String?
        /// Set on `window` before the changes: gone if the page was reloaded.
        let marker: String?
        let items: [Item]
        let newTitle: String
        /// The first open tag form's input, and whether it has the focus.
        let tagInput: String?
        let tagInputFocused: Bool

        var titles: [String] { items.map(\.title) }
    }

    static let readView = """
        const input = document.querySelector('[data-testid="tag-form"]:not([hidden]) input');
        return {
          ready: document.body.dataset.state === "ready",
          live: document.body.dataset.live ?? null,
          marker: window.liveMarker ?? null,
          items: [...document.querySelectorAll('[data-testid="todo-item"]')].map((li) => ({
            id: li.dataset.id,
            title: li.querySelector('[data-testid="todo-title"]').textContent,
            done: li.classList.contains("done"),
          })),
          newTitle: document.getElementById("new-title").value,
          tagInput: input ? input.value : null,
          tagInputFocused: input !== null && document.activeElement === input,
        };
        """

    @Test("a change in window A shows in window B within a second, without a reload; a restarted server is followed")
    func twoWindows() async throws {
        guard let chromium = Chromium.browser, let chromedriver = Chromium.driver else {
            Issue.record("STRATA_REQUIRE_BROWSER=1, but Chromium or chromedriver is missing: \(Chromium.missingNotice)")
            return
        }
        let services = try TodoServices(store: .inMemory)
        try await SampleData.load(into: services)
        var server = try await RunningServer(services: services, port: 0)
        let driver = try await ChromeDriverProcess(executable: chromedriver)
        var windows: [WebDriver] = []
        do {
            windows.append(try await WebDriver.startSession(port: driver.port, chromium: chromium))
            windows.append(try await WebDriver.startSession(port: driver.port, chromium: chromium))
            try await Self.steps(windows[0], windows[1], services: services, server: &server)
        } catch {
            for window in windows { await window.quit() }
            await driver.stop()
            await server.stop()
            throw error
        }
        for window in windows { await window.quit() }
        await driver.stop()
        await server.stop()
    }

    private static func steps(_ a: WebDriver, _ b: WebDriver, services: TodoServices, server: inout RunningServer) async throws {
        for window in [a, b] {
            try await window.open(server.url)
            try await waitFor(window, "the live sample list") { $0.ready && $0.live == "on" && $0.items.count == 7 }
        }
        #expect(server.updates.subscriberCount == 2)
        _ = try await b.execute(#"window.liveMarker = "set before the changes"; return true;"#, as: Bool.self)
        try await b.type("Half-typed in B", into: try await b.find("#new-title"))

        // Add in A: B shows it within a second, with its marker and its typing intact.
        let title = "Added in window A"
        try await a.type(title, into: try await a.find("#new-title"))
        try await a.click(try await a.find("#add-button"))
        var view = try await within(1, b, "the to-do added in A") { $0.titles.contains(title) }
        #expect(view.marker == "set before the changes", "window B was reloaded")
        #expect(view.newTitle == "Half-typed in B")
        let id = try #require(view.items.first { $0.title == title }?.id)
        let item = "[data-testid=\"todo-item\"][data-id=\"\(id)\"]"

        // B starts tagging the to-do (once its refetch after the change is in); A completes it:
        // B shows it done, and keeps the typing.
        try await waitFor(b, "window B's refetch") { $0.ready }
        try await b.click(try await b.find("\(item) [data-testid=\"tag-button\"]"))
        try await b.type("half a tag", into: try await b.find("\(item) [data-testid=\"tag-input\"]"))
        try await a.click(try await a.find("\(item) [data-testid=\"todo-toggle\"]"))
        view = try await within(1, b, "the to-do done") { $0.items.first { $0.id == id }?.done == true }
        #expect(view.tagInput == "half a tag" && view.tagInputFocused)
        #expect(view.marker == "set before the changes")
        #expect(try await services.todos.todo(id: try #require(UUID(uuidString: id))).completedAt != nil)

        // Delete in A: gone from B.
        try await waitFor(a, "window A's refetch") { $0.ready }
        try await a.click(try await a.find("\(item) [data-testid=\"delete-button\"]"))
        view = try await within(1, b, "the to-do gone") { !$0.items.contains { $0.id == id } && $0.items.count == 7 }
        #expect(view.marker == "set before the changes")

        // The other way: B completes a to-do, A shows it.
        view = try await waitFor(b, "window B's refetch") { $0.ready }
        let other = try #require(view.items.first { !$0.done })
        try await b.click(try await b.find("[data-testid=\"todo-item\"][data-id=\"\(other.id)\"] [data-testid=\"todo-toggle\"]"))
        _ = try await within(1, a, "the to-do B completed") { $0.items.first { $0.id == other.id }?.done == true }

        // A change saved beside the pages (another context of the store): both show it.
        let renamed = "Renamed outside the pages"
        _ = try await services.todos.rename(id: try #require(UUID(uuidString: other.id)), to: renamed)
        for window in [a, b] {
            _ = try await within(1, window, "the renamed to-do") { $0.titles.contains(renamed) }
        }

        // The server restarts on the same port; what was saved meanwhile shows once B is back.
        await server.stop()
        try await waitFor(b, "the page noticing") { $0.live == "off" }
        let whileDown = try await services.todos.add(title: "Added while the server was down", tagIds: [])
        server = try await RunningServer(services: services, port: server.port)
        view = try await waitFor(b, "the page back, caught up") { $0.live == "on" && $0.titles.contains(whileDown.title) }
        #expect(view.marker == "set before the changes")
        #expect(view.newTitle == "Half-typed in B")
        #expect(server.updates.subscriberCount == 2)
    }

    /// Polls the window until `condition` holds, for at most `seconds` from now; records how
    /// long it took.
    @discardableResult
    private static func within(
        _ seconds: Double, _ window: WebDriver, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (View) -> Bool
    ) async throws -> View {
        let started = Date()
        let view = try await waitFor(window, what, seconds: seconds, sourceLocation: sourceLocation, condition)
        print("The live page showed \(what) after \(Int(Date().timeIntervalSince(started) * 1000)) ms.")
        return view
    }

    /// Reads the window until `condition` holds; fails with the last view after `seconds`.
    @discardableResult
    private static func waitFor(
        _ window: WebDriver, _ what: String, seconds: Double = 15, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (View) -> Bool
    ) async throws -> View {
        let deadline = Date().addingTimeInterval(seconds)
        var view = try await window.execute(readView, as: View.self)
        while !condition(view) {
            guard Date() < deadline else {
                Issue.record(
                    "The page never showed \(what) within \(seconds) s; it shows \(view)", sourceLocation: sourceLocation)
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
            view = try await window.execute(readView, as: View.self)
        }
        return view
    }
}

/// A `TodoServer` serving in this process until `stop()`, on a port that may be asked for
/// again after it stopped (a restart).
struct RunningServer {
    let url: URL
    let port: Int
    let updates: LiveUpdates
    private let serving: Task<Void, any Error>

    init(services: TodoServices, port: Int) async throws {
        let server = TodoServer(services: services, port: port, logLevel: .critical)
        let (addresses, continuation) = AsyncStream<String>.makeStream()
        serving = Task {
            defer { continuation.finish() }
            try await server.runUntilCancelled { continuation.yield($0) }
        }
        var iterator = addresses.makeAsyncIterator()
        guard let address = await iterator.next(), let url = URL(string: address), let bound = url.port else {
            try await serving.value
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the server stopped before listening"])
        }
        self.url = url
        self.port = bound
        updates = server.liveUpdates
    }

    func stop() async {
        serving.cancel()
        _ = try? await serving.value
    }
}
