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
            SyncPaths.schema,
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

    /// What each operation can answer, as the server does (its routes, `RequestValidation`,
    /// the authentication middleware, `SyncErrorMiddleware`): a status the server gives and the
    /// document leaves out fails every client generated from the document.
    @Test("each operation lists every status the server answers it with")
    func statusesPerOperation() throws {
        let text = try document()
        let expected: [String: [String]] = [
            "health": ["200"],
            "listZones": ["200", "401", "429", "500"],
            "createZone": ["200", "400", "401", "429", "500"],
            "getZone": ["200", "400", "401", "404", "429", "500"],
            "deleteZone": ["204", "400", "401", "404", "429", "500"],
            "push": ["200", "400", "401", "404", "409", "413", "429", "500"],
            "changes": ["200", "400", "401", "404", "410", "429", "500"],
            "query": ["200", "400", "401", "404", "413", "429", "500"],
            "putAsset": ["204", "400", "401", "404", "413", "429", "500"],
            // A bad zone name answers 400 before the asset is looked for.
            "getAsset": ["200", "400", "401", "404", "429", "500"],
            "getSchema": ["200", "401", "429", "500"],
            "putSchema": ["200", "400", "401", "413", "429", "500"],
        ]
        for (operation, statuses) in expected {
            #expect(Self.statuses(of: operation, in: text) == statuses, "\(operation)")
        }
    }

    /// The quoted status keys of an operation's `responses`, in the document's order: the
    /// lines after its `operationId` up to the next operation or path.
    static func statuses(of operationID: String, in text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "operationId: \(operationID)" })
        else { return [] }
        var statuses: [String] = []
        for line in lines[(start + 1)...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("    "), !trimmed.hasPrefix("operationId:") else { break }
            let key = trimmed.prefix(6)
            if line.hasPrefix("        \""), key.hasSuffix("\":"), key.dropFirst().prefix(3).allSatisfy(\.isNumber) {
                statuses.append(String(key.dropFirst().prefix(3)))
            }
        }
        return statuses
    }
}
