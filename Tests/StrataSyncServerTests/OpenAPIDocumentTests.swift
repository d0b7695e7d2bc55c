import Foundation
import StrataSyncProtocol
import Testing

/// The OpenAPI document describes the wire format for clients in other languages: it must
/// name every endpoint of `SyncPaths` and every error code.
@Suite("Sync OpenAPI document")
struct OpenAPIDocumentTests {
    private func document() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("Documentation/sync-openapi.yaml"), encoding: .utf8)
    }

    @Test("every SyncPaths path is a path of the document, and every error code is listed")
    func everyPath() throws {
        let text = try document()
        #expect(text.hasPrefix("openapi: 3.1"))
        let paths = [
            SyncPaths.health, SyncPaths.zones, SyncPaths.zone("{zone}"), SyncPaths.push("{zone}"),
            SyncPaths.changes("{zone}"), SyncPaths.query("{zone}"), SyncPaths.asset("{zone}", sha256: "{sha256}"),
        ].map { $0.replacingOccurrences(of: "%7B", with: "{").replacingOccurrences(of: "%7D", with: "}") }
        for path in paths {
            #expect(text.contains("\n  \(path):"), "missing path \(path)")
        }
        let codes: [SyncErrorCode] = [
            .badRequest, .limitExceeded, .unauthorized, .notFound, .outOfOrder, .schemaConflict, .resyncRequired,
            .payloadTooLarge, .rateLimited, .internalError,
        ]
        for code in codes {
            #expect(text.contains(code.rawValue), "missing error code \(code.rawValue)")
        }
        for kind in FieldValue.Kind.allCases {
            #expect(
                text.contains("- \(kind.rawValue)\n") || text.contains("- \"\(kind.rawValue)\"\n"),
                "missing field kind \(kind.rawValue)")
        }
    }
}
