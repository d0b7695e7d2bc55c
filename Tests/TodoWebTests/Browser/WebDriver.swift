import Foundation
import Testing

/// A small client of the W3C WebDriver protocol (what chromedriver speaks: JSON over HTTP),
/// with just what the browser test does: open a page, find elements, click, type, run a
/// script that reads the DOM, take a screenshot.
struct WebDriver: Sendable {
    /// A failed WebDriver command, with the driver's own error and message.
    struct Failure: Error, CustomStringConvertible {
        let command: String
        let error: String
        let message: String

        var description: String { "WebDriver \(command): \(error): \(message)" }
    }

    /// An element of the page, by the driver's reference.
    struct Element: Codable, Sendable {
        let reference: String

        private enum CodingKeys: String, CodingKey {
            case reference = "element-6066-11e4-a52e-4f735466cecf"
        }
    }

    private struct Reply<Value: Decodable>: Decodable {
        let value: Value
    }

    private struct ErrorValue: Decodable {
        let error: String
        let message: String
    }

    private struct Ignored: Decodable {}

    private struct Session: Decodable {
        let sessionId: String
    }

    /// chromedriver's port on 127.0.0.1.
    let port: Int
    let sessionId: String

    /// Starts a browser session: headless Chromium at `chromium`, with a window of the size.
    static func startSession(port: Int, chromium: URL, width: Int = 1280, height: Int = 1100) async throws -> WebDriver {
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": chromium.path,
                        // No sandbox: test machines run as root in containers, where Chromium's
                        // sandbox cannot start.
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=\(width),\(height)", "--lang=en-US", "--force-device-scale-factor=1",
                        ],
                    ],
                ]
            ]
        ]
        let body = try JSONSerialization.data(withJSONObject: capabilities)
        let session: Session = try await send(port, "POST", "/session", body: body, command: "new session")
        return WebDriver(port: port, sessionId: session.sessionId)
    }

    private init(port: Int, sessionId: String) {
        self.port = port
        self.sessionId = sessionId
    }

    /// Ends the session, which closes the browser.
    func quit() async {
        _ = try? await command("DELETE", "", as: Ignored?.self)
    }

    func open(_ url: URL) async throws {
        _ = try await command("POST", "url", ["url": url.absoluteString], as: Ignored?.self)
    }

    /// The first element matching the CSS selector, within `parent` if given.
    func find(_ selector: String, in parent: Element? = nil) async throws -> Element {
        let path = parent.map { "element/\($0.reference)/element" } ?? "element"
        return try await command("POST", path, ["using": "css selector", "value": selector], as: Element.self)
    }

    /// Every element matching the CSS selector.
    func findAll(_ selector: String) async throws -> [Element] {
        try await command("POST", "elements", ["using": "css selector", "value": selector], as: [Element].self)
    }

    func click(_ element: Element) async throws {
        _ = try await command("POST", "element/\(element.reference)/click", [String: String](), as: Ignored?.self)
    }

    /// Types the text into the element, as keystrokes (`Keys` has the special ones).
    func type(_ text: String, into element: Element) async throws {
        _ = try await command("POST", "element/\(element.reference)/value", ["text": text], as: Ignored?.self)
    }

    func property(_ name: String, of element: Element) async throws -> String? {
        try await command("GET", "element/\(element.reference)/property/\(name)", as: String?.self)
    }

    /// Runs the script (a function body; `arguments` holds the values) and decodes what it returns.
    func execute<Value: Decodable>(_ script: String, as type: Value.Type) async throws -> Value {
        let body = try JSONSerialization.data(withJSONObject: ["script": script, "args": [Any]()])
        return try await Self.send(port, "POST", path("execute/sync"), body: body, command: "execute")
    }

    /// A PNG of the window.
    func screenshot() async throws -> Data {
        let base64 = try await command("GET", "screenshot", as: String.self)
        return try #require(Data(base64Encoded: base64))
    }

    /// The special keys of `type(_:into:)`.
    enum Keys {
        static let backspace = "\u{E003}"
    }

    private func path(_ command: String) -> String {
        command.isEmpty ? "/session/\(sessionId)" : "/session/\(sessionId)/\(command)"
    }

    private func command<Value: Decodable>(
        _ method: String, _ path: String, _ parameters: [String: String]? = nil, as type: Value.Type
    ) async throws -> Value {
        let body = try parameters.map { try JSONEncoder().encode($0) }
        return try await Self.send(port, method, self.path(path), body: body, command: "\(method) \(path)")
    }

    private static func send<Value: Decodable>(
        _ port: Int, _ method: String, _ path: String, body: Data?, command: String
    )
        async throws -> Value
    {
        let (status, data) = try await LoopbackHTTP.send(method, port: port, path: path, body: body)
        guard (200..<300).contains(status) else {
            let error = try? JSONDecoder().decode(Reply<ErrorValue>.self, from: data).value
            throw Failure(
                command: command, error: error?.error ?? "HTTP \(status)",
                message: error?.message ?? String(decoding: data, as: UTF8.self))
        }
        return try JSONDecoder().decode(Reply<Value>.self, from: data).value
    }
}
