import Foundation

/// One message of a `text/event-stream`, the wire format of the HTML standard's server-sent
/// events, which a page reads with `EventSource`.
///
/// ```swift
/// ServerSentEvent(name: "change", id: "7", data: #"{"version":7}"#).text
/// // "event: change\nid: 7\ndata: {\"version\":7}\n\n"
/// ServerSentEvent.comment("keep-alive").text   // ": keep-alive\n\n"
/// ```
///
/// The browser joins several `data:` lines with line feeds, so data with line breaks is split
/// into one line each; a lone carriage return would end a line too, and is sent as a line
/// break of its own.
public struct ServerSentEvent: Equatable, Sendable {
    /// The event's type (`addEventListener(name, …)` in the page); `nil` for a comment.
    public var name: String?
    /// The id the browser sends back as `Last-Event-ID` when it reconnects.
    public var id: String?
    /// The payload, JSON for this app's events.
    public var data: String
    /// How long the browser waits before reconnecting after the stream is cut, in
    /// milliseconds (the browser's own default is about three seconds).
    public var retry: Int?
    /// A comment line instead of an event: the page never sees it, but it keeps an idle
    /// connection from being cut by a proxy and shows whether the page is still there.
    public var comment: String?

    public init(name: String?, id: String? = nil, data: String, retry: Int? = nil) {
        self.name = name
        self.id = id
        self.data = data
        self.retry = retry
    }

    /// A comment, which `EventSource` ignores.
    public static func comment(_ text: String) -> ServerSentEvent {
        var event = ServerSentEvent(name: nil, data: "")
        event.comment = text
        return event
    }

    /// The event as it is written on the stream, ending with the blank line that dispatches it.
    public var text: String {
        var text = ""
        if let comment {
            for line in Self.lines(comment) { text += ": \(line)\n" }
            return text + "\n"
        }
        if let retry { text += "retry: \(retry)\n" }
        if let name { text += "event: \(Self.singleLine(name))\n" }
        if let id { text += "id: \(Self.singleLine(id))\n" }
        for line in Self.lines(data) { text += "data: \(line)\n" }
        return text + "\n"
    }

    /// The lines of `text`, split where the format ends a line (CR LF, LF or CR).
    private static func lines(_ text: String) -> [Substring] {
        text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "\r", omittingEmptySubsequences: false) }
    }

    /// A field that must stay on its line.
    private static func singleLine(_ text: String) -> String {
        text.filter { $0 != "\n" && $0 != "\r" && $0 != "\r\n" }
    }
}
