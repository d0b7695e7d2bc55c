import Foundation
import Strata

/// Where the `model` and `port` tests find their inputs: the fixtures beside this file, and
/// the shared corpus of real Core Data files (`../shared/testdata/coredata`), which a user's
/// clone does not have.
enum ModelTestFiles {
    /// `Tests/StrataToolTests/Fixtures`.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func model(_ name: String) -> String { fixtures.appendingPathComponent("Models/\(name)").path }

    static func port(_ name: String) -> String { fixtures.appendingPathComponent("Port/\(name)").path }

    /// The package's root folder.
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `../shared/testdata/coredata`, beside the package.
    static let corpus = package.deletingLastPathComponent().appendingPathComponent("shared/testdata/coredata")

    /// Every model version (`.xcdatamodel`) of the corpus, by path; empty (with a notice) when
    /// the corpus is absent.
    static let corpusModels: [String] = {
        let root = corpus.appendingPathComponent("models")
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            print("NOTICE: \(root.path) is absent; the strata tool's corpus model tests are skipped")
            return []
        }
        return enumerator.compactMap { ($0 as? URL)?.path }.filter { $0.hasSuffix(".xcdatamodel") }.sorted()
    }()

    /// Every SQLite store of the corpus, by path; empty (with a notice) when absent.
    static let corpusStores: [String] = {
        let root = corpus.appendingPathComponent("stores")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else {
            print("NOTICE: \(root.path) is absent; the strata tool's corpus store tests are skipped")
            return []
        }
        return names.filter { $0.hasSuffix(".sqlite") }.sorted().map { root.appendingPathComponent($0).path }
    }()

    /// A new, empty temporary folder; the caller removes it.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tool-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The names of a model's entities, read in this process with Strata.
    static func entityNames(_ path: String) throws -> [String] {
        try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: path)).entities.compactMap(\.name).sorted()
    }

    /// Decodes the JSON a run printed.
    static func json(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        return object
    }
}
