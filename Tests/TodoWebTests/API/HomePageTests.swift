import Foundation
import Testing

/// The page at `/`, read as text (the browser test uses it for real).
@Suite("The page")
struct HomePageTests {
    @Test("/ serves one self-contained HTML document with the ids the browser test relies on")
    func page() async throws {
        try await withServer { api in
            let reply = try await api.send("GET", "")
            #expect(reply.status == 200)
            #expect(reply.contentType == "text/html; charset=utf-8")
            let html = reply.text
            #expect(html.hasPrefix("<!doctype html>"))
            for id in [
                "new-title", "new-tags", "add-button", "search", "tag-list", "todo-list", "page-info", "editor", "edit-save",
            ] {
                #expect(html.contains(#"id="\#(id)""#), "missing #\(id)")
            }
            // Nothing is fetched from elsewhere: no external scripts, styles, images or fonts.
            #expect(!html.contains("<script src"))
            #expect(!html.contains("<link rel=\"stylesheet\""))
            #expect(!html.contains("http://") && !html.contains("https://"))
            #expect(!html.contains("@import"))
        }
    }
}
