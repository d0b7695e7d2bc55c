import ArgumentParser
import Foundation
import Strata

/// The MODEL argument of `strata model …`, read: an `.xcdatamodeld` (its current version, or
/// `--version`), an `.xcdatamodel`, a `.momd`/`.mom` (Strata's or Xcode's compiled ones), a
/// `contents` file, or a SQLite store, whose cached model (`Z_MODELCACHE`) is read from a
/// copy, so that the store is never modified.
struct ModelSource {
    /// The model, read.
    let model: NSManagedObjectModel
    /// The path the user gave.
    let path: String
    /// What kind of file it was, for people and scripts ("xcdatamodeld", "store"…).
    let kind: String
    /// The file the model was read from (a version's `contents`, a `.mom`), for problems'
    /// locations; nil for a store.
    let contents: URL?
    /// The version read, for versioned bundles.
    let versionName: String?
    /// Every version of a versioned bundle, sorted.
    let versionNames: [String]
    /// The problems validation found (errors and warnings), with file and line.
    let problems: [ModelError]

    /// Reads a model for describing, drawing or generating: a model with errors is refused
    /// with its first error, as Core Data refuses it.
    static func load(_ path: String, version: String?) throws -> ModelSource {
        let source = try read(path, version: version)
        if let error = source.problems.first(where: { $0.severity == .error }) {
            throw ModelToolFailure("\(path) is not a valid model: \(location(of: error))\(error.message)")
        }
        return source
    }

    /// Reads a model and every problem in it, errors included.
    static func read(_ path: String, version: String?) throws -> ModelSource {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelToolFailure("no such file: \(path)")
        }
        if !isDirectory.boolValue, StoreFile.isSQLite(url) {
            guard version == nil else { throw ValidationError("--version applies to an .xcdatamodeld or .momd only") }
            return try readStore(url, path: path)
        }
        var file = url
        var versionName: String?
        var versionNames: [String] = []
        switch url.pathExtension {
        case "xcdatamodeld":
            let bundle: XcodeModelBundle
            do {
                bundle = try XcodeModelBundle(url: url)
            } catch {
                throw ModelReadFailure(error: error)
            }
            versionNames = bundle.versionNames
            let name = version ?? bundle.currentVersionName
            guard bundle.versionNames.contains(name) else {
                throw ModelToolFailure(
                    "\(path) has no version \"\(name)\" (versions: \(bundle.versionNames.joined(separator: ", ")))")
            }
            versionName = name
            file = url.appendingPathComponent(name + ".xcdatamodel")
        case "momd" where isDirectory.boolValue:
            versionNames = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
                .filter { $0.hasSuffix(".mom") }.map { String($0.dropLast(".mom".count)) }.sorted()
            if let version {
                guard versionNames.contains(version) else {
                    throw ModelToolFailure(
                        "\(path) has no version \"\(version)\" (versions: \(versionNames.joined(separator: ", ")))")
                }
                versionName = version
                file = url.appendingPathComponent(version + ".mom")
            }
        default:
            guard version == nil else { throw ValidationError("--version applies to an .xcdatamodeld or .momd only") }
        }
        let check: (model: NSManagedObjectModel, contents: URL, problems: [ModelError])
        do {
            check = try NSManagedObjectModel.check(contentsOf: file)
        } catch {
            throw ModelReadFailure(error: error)
        }
        return ModelSource(
            model: check.model, path: path, kind: kind(of: url, isDirectory: isDirectory.boolValue),
            contents: check.contents, versionName: versionName, versionNames: versionNames, problems: check.problems)
    }

    /// A store's cached model, read from a copy of the store and its `-wal`/`-shm` files: even
    /// a read-only SQLite connection may rewrite a store's shared-memory file.
    private static func readStore(_ url: URL, path: String) throws -> ModelSource {
        let copy = try StoreFile.temporaryCopy(of: url)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let model: NSManagedObjectModel
        do {
            model = try NSManagedObjectModel.cachedModel(ofStoreAt: copy)
        } catch {
            let reason = (error as NSError).localizedDescription.replacingOccurrences(of: copy.path, with: path)
            throw ModelToolFailure(reason)
        }
        return ModelSource(
            model: model, path: path, kind: "store", contents: nil, versionName: nil, versionNames: [],
            problems: model.validationErrors())
    }

    /// `file:line: ` (or `file: `) of a problem, for messages.
    static func location(of error: ModelError) -> String {
        guard let file = error.file else { return "" }
        return display(file) + (error.line.map { ":\($0)" } ?? "") + ": "
    }

    /// A file's path as the user would have typed it: relative to the current folder when it
    /// lies below it (URLs made from relative paths print absolute), absolute otherwise.
    static func display(_ url: URL) -> String {
        let folder = FileManager.default.currentDirectoryPath
        let path = url.standardizedFileURL.path
        return path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
    }

    /// The kind named by the file's extension; anything else was read as a `contents` file.
    private static func kind(of url: URL, isDirectory: Bool) -> String {
        switch url.pathExtension {
        case "xcdatamodeld", "xcdatamodel", "momd", "mom": url.pathExtension
        default: "contents"
        }
    }
}

/// A model file that cannot be read as a model at all (XML that is not well formed, a
/// damaged compiled model, a bundle without versions): `validate` reports it as a problem at
/// its place, the other commands as their one-line failure.
struct ModelReadFailure: Error, CustomStringConvertible {
    let error: ModelError
    var description: String { ModelSource.location(of: error) + error.message }
}

/// SQLite store files as the model commands meet them.
enum StoreFile {
    /// Whether the file starts with SQLite's header, whatever its name.
    static func isSQLite(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header == Data("SQLite format 3\0".utf8)
    }

    /// Copies a store with its `-wal` and `-shm` companions into a new temporary folder and
    /// returns the copy's URL; the caller removes the folder.
    static func temporaryCopy(of url: URL) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-model-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm"] {
                let source = URL(fileURLWithPath: url.path + suffix)
                if FileManager.default.fileExists(atPath: source.path) {
                    try FileManager.default.copyItem(
                        at: source, to: folder.appendingPathComponent(url.lastPathComponent + suffix))
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw ModelToolFailure("cannot copy \(url.path) to read it: \(error.localizedDescription)")
        }
        return folder.appendingPathComponent(url.lastPathComponent)
    }
}
