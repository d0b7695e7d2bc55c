import Hummingbird

/// The page at `/`: one self-contained document (markup, style and script inline, nothing
/// fetched from elsewhere) that works the list through the JSON API.
///
/// Its elements carry stable `id`s and `data-testid`s, which the browser test relies on:
/// `#new-title`, `#new-tags`, `#add-button`, `#search`, `#tag-list` with `tag-filter` buttons,
/// `#todo-list` with `todo-item`s (`todo-title`, `todo-toggle`, `todo-tag`, `untag-button`,
/// `todo-location`, `tag-button`, `tag-input`, `tag-submit`, `edit-button`, `locate-button`,
/// `delete-button`), `#page-info`, `#prev-page`, `#next-page`, `#message`, and the editor
/// dialog `#editor` (`#edit-title`, `#edit-tags`, `#edit-latitude`, `#edit-longitude`,
/// `#edit-altitude`, `#edit-place`, `#edit-clear-location`, `#edit-save`, `#edit-cancel`).
/// The body's `data-state` is `ready` once a load has been drawn, `data-live` is `on` while the
/// page follows the server's events (`/api/events`), and `data-version` is the last change's
/// number.
enum HomePage {
    /// The whole document.
    static let html: String =
        PageMarkup.document
        .replacingOccurrences(of: "/*STYLE*/", with: PageStyle.css)
        .replacingOccurrences(of: "/*SCRIPT*/", with: PageScript.javascript)

    static var response: Response {
        let buffer = ByteBuffer(string: html)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentLength] = String(buffer.readableBytes)
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: buffer))
    }
}
