import Foundation

/// The Swift files `strata port` reads: the files named, and the `.swift` files under the
/// folders named, in path order, skipping hidden folders and SwiftPM's `.build`.
enum PortFiles {
    /// The Swift files of the paths; a path that does not exist, or a file that is not Swift, fails.
    static func swiftFiles(in paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ModelToolFailure("no such file or folder: \(path)")
            }
            guard isDirectory.boolValue else {
                guard path.hasSuffix(".swift") else { throw ModelToolFailure("not a Swift file: \(path)") }
                files.append(path)
                continue
            }
            let root = URL(fileURLWithPath: path)
            guard
                let enumerator = FileManager.default.enumerator(
                    at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
            else { throw ModelToolFailure("cannot read the folder \(path)") }
            var found: [String] = []
            for case let url as URL in enumerator {
                if url.lastPathComponent == ".build" {
                    enumerator.skipDescendants()
                } else if url.pathExtension == "swift" {
                    found.append(path.hasSuffix("/") ? path + relative(url, to: root) : path + "/" + relative(url, to: root))
                }
            }
            files += found.sorted()
        }
        return files
    }

    /// The path of `url` below `root`, so that findings name files as the user named the folder.
    private static func relative(_ url: URL, to root: URL) -> String {
        let base = root.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let full = url.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        guard full.starts(with: base) else { return url.path }
        return full.dropFirst(base.count).joined(separator: "/")
    }
}

/// One file scanned and, with `--fix`, rewritten.
struct PortFileFixer {
    let path: String
    let context: PortContext
    /// Overrides moved out of extensions (of any file) into classes this file declares.
    var insertions: [PortMove] = []

    /// The file's findings; with `fix`, the mechanical ones applied (marked `fixed`) and the
    /// file written back only when it changed. Edits that overlap an applied one (two spots in
    /// one expression) are applied by scanning again, up to a few rounds.
    func run(fix: Bool) throws -> [PortFinding] {
        let original: String
        do {
            original = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ModelToolFailure("cannot read \(path) as UTF-8 text: \(error.localizedDescription)")
        }
        let findings = PortScanner.scan(original, file: path, context: context)
        guard fix else { return findings }
        var text = original
        // The members moved here, at the end of their classes' bodies, before anything else.
        for moves in Dictionary(grouping: insertions, by: \.className).values {
            if let edit = PortScanner.insertion(of: moves, into: text) { text = SourceEdit.apply([edit], to: text).text }
        }
        for _ in 0..<4 {
            let current = PortScanner.scan(text, file: path, context: context)
            let edits = current.compactMap(\.edit)
            if edits.isEmpty { break }
            let result = SourceEdit.apply(edits, to: text)
            text = result.text
            if result.skipped.count == edits.count { break }
        }
        // What still has an edit after the rounds was not fixed (edits that kept overlapping);
        // a rule with none left had all its spots fixed.
        let unfixedRules = Set(
            PortScanner.scan(text, file: path, context: context).filter { $0.edit != nil }.map(\.rule))
        let result = findings.map { finding in
            var finding = finding
            finding.fixed = finding.edit != nil && !unfixedRules.contains(finding.rule)
            return finding
        }
        if text != original {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw ModelToolFailure("cannot write \(path): \(error.localizedDescription)")
            }
        }
        return result
    }
}
