import Foundation
import StrataCodegen

/// The check of a target's sources that the plugin asks for with `names`.
enum SourceCheck {
    /// Sources that use `@NSManaged`.
    struct NSManagedFound: Error, CustomStringConvertible {
        let count: Int
        var description: String { "\(count) use\(count == 1 ? "" : "s") of @NSManaged; write @Managed instead" }
    }

    /// Prints each `@NSManaged` as a compiler error at its line, and throws if there was one.
    static func rejectNSManaged(in sources: [URL]) throws {
        var count = 0
        for source in sources where source.pathExtension == "swift" {
            guard let text = try? String(contentsOf: source, encoding: .utf8) else { continue }
            for finding in NSManagedScanner.findings(in: text) {
                FileHandle.standardError.write(Data((NSManagedScanner.message(file: source.path, finding) + "\n").utf8))
                count += 1
            }
        }
        if count > 0 { throw NSManagedFound(count: count) }
    }
}
