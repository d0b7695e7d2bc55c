import Foundation

/// Strata's form of the compiled models an app ships (`Model.momd`, `Model.mom`), which apps
/// find with `Bundle.main.url(forResource: "Model", withExtension: "momd")`.
///
/// Xcode compiles a model into binary keyed archives; Strata keeps the layout of Xcode's
/// output and the model XML inside it:
///
/// - `Model.mom` is a file holding the `contents` XML of one model version;
/// - `Model.momd` is a directory holding one `<Version>.mom` per version of an
///   `.xcdatamodeld` and a `VersionInfo.plist` whose `NSManagedObjectModel_CurrentVersionName`
///   names the current version and whose `NSManagedObjectModel_VersionHashes` holds each
///   version's entity version hashes, as Xcode's does.
///
/// So code that opens `VersionInfo.plist` to pick a version, as some apps do, works too.
/// A `.mom` compiled by Xcode (the keyed archive of a model, a binary property list) is read as
/// well, through `CompiledModelDecoder`, so the models inside apps built on Apple's systems load.
public enum CompiledModelFiles {
    /// The name of the version list inside a `.momd`.
    public static let versionInfoName = "VersionInfo.plist"
    /// The key of the current version's name in `VersionInfo.plist`.
    public static let currentVersionKey = "NSManagedObjectModel_CurrentVersionName"
    /// The key of the version hashes (version name → entity name → hash) in `VersionInfo.plist`.
    public static let versionHashesKey = "NSManagedObjectModel_VersionHashes"

    /// Compiles an `.xcdatamodeld` into a `.momd` directory, or an `.xcdatamodel` (or its
    /// `contents` file) into a `.mom` file, replacing what is at `destination`. Every version
    /// is loaded first, so a model that cannot be loaded fails here with its error.
    ///
    /// With `classModule`, the module the target's classes are compiled into, class names are
    /// qualified as Xcode's model compiler qualifies them (`momc --module`): an entity whose class
    /// Xcode generates ("Class Definition") or whose module is "Current Product Module" (a class
    /// name written with a leading dot) names `Module.Class`, so that the class is found on its
    /// first use, before the program has touched it.
    public static func compile(_ source: URL, to destination: URL, classModule: String? = nil) throws(ModelError) {
        let fileManager = FileManager.default
        var versions: [String: Data] = [:]
        var hashes: [String: [String: Data]] = [:]
        var current: String?
        if source.pathExtension == "xcdatamodeld" {
            let bundle = try XcodeModelBundle(url: source)
            for name in bundle.versionNames {
                let contents = bundle.contentsURL(ofVersion: name)
                let model = try NSManagedObjectModel.load(contentsOf: contents)
                versions[name] = qualifyingClassNames(in: try read(contents), module: classModule)
                hashes[name] = model.entityVersionHashesByName
            }
            current = bundle.currentVersionName
        } else {
            let contents = source.pathExtension == "xcdatamodel" ? source.appendingPathComponent("contents") : source
            _ = try NSManagedObjectModel.load(contentsOf: contents)
            versions[""] = qualifyingClassNames(in: try read(contents), module: classModule)
        }
        // Written aside, then moved into place: builds of the same target for the host and for
        // the destination may write the same copy beside the executables at the same time.
        let parent = destination.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(destination.lastPathComponent)-\(UUID().uuidString)")
        do {
            try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
            if let current {
                try fileManager.createDirectory(at: staging, withIntermediateDirectories: true)
                for (name, data) in versions {
                    try data.write(to: staging.appendingPathComponent(name + ".mom"), options: .atomic)
                }
                let info: [String: Any] = [currentVersionKey: current, versionHashesKey: hashes]
                let plist = try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
                try plist.write(to: staging.appendingPathComponent(versionInfoName), options: .atomic)
            } else {
                try versions[""]?.write(to: staging, options: .atomic)
            }
            try moveIntoPlace(staging, destination)
        } catch {
            try? fileManager.removeItem(at: staging)
            throw ModelError(.unreadableFile(reason: "cannot write \(destination.path): \(error.localizedDescription)"))
        }
    }

    /// Replaces `destination` with `staging`. Another writer of the same model may replace it
    /// in between; its result is the same, so a few tries settle it.
    private static func moveIntoPlace(_ staging: URL, _ destination: URL) throws {
        let fileManager = FileManager.default
        var lastError: (any Error)?
        for _ in 0..<5 {
            if fileManager.fileExists(atPath: destination.path) {
                let old = destination.deletingLastPathComponent().appendingPathComponent(".old-\(UUID().uuidString)")
                try? fileManager.moveItem(at: destination, to: old)
                try? fileManager.removeItem(at: old)
            }
            do {
                try fileManager.moveItem(at: staging, to: destination)
                return
            } catch {
                lastError = error
            }
        }
        if let lastError { throw lastError }
    }

    /// The `.mom` file of a `.momd` directory's current version: the one `VersionInfo.plist`
    /// names, else the directory's only `.mom`.
    static func currentVersionURL(inMomd url: URL) throws(ModelError) -> URL {
        let infoURL = url.appendingPathComponent(versionInfoName)
        if let data = FileManager.default.contents(atPath: infoURL.path) {
            guard let info = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
                throw ModelError(.malformedXML(reason: "unreadable \(versionInfoName)"), file: infoURL)
            }
            if let name = info[currentVersionKey] as? String {
                let version = url.appendingPathComponent(name + ".mom")
                guard FileManager.default.fileExists(atPath: version.path) else {
                    throw ModelError(.missingModelVersion(name: name), file: infoURL)
                }
                return version
            }
        }
        let versions = versionURLs(inMomd: url)
        guard versions.count == 1, let only = versions.first else {
            throw ModelError(.missingModelVersion(name: nil), file: url)
        }
        return only
    }

    /// Every version (`.mom` file) of a `.momd` directory, by name.
    static func versionURLs(inMomd url: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".mom") }.sorted().map { url.appendingPathComponent($0) }
    }

    /// Whether data is a binary property list, the form of the models Xcode compiles.
    static func isBinaryPropertyList(_ data: Data) -> Bool {
        data.starts(with: Data("bplist".utf8))
    }

    /// The model XML with the class names of the module's entities qualified (see
    /// `compile(_:to:classModule:)`): each `<entity>` start tag whose `codeGenerationType` is
    /// `class` (its class is generated into the module) or whose `representedClassName` starts
    /// with a dot. Names already qualified (`Other.Book`) and other entities stay as written.
    static func qualifyingClassNames(in data: Data, module: String?) -> Data {
        guard let module, !module.isEmpty, let text = String(data: data, encoding: .utf8) else { return data }
        var result = ""
        var copied = text.startIndex
        for range in text.ranges(of: /<entity\b[^>]*>/) {
            result += text[copied..<range.lowerBound]
            result += qualifiedEntityTag(text[range], module: module)
            copied = range.upperBound
        }
        guard copied != text.startIndex else { return data }
        result += text[copied...]
        return Data(result.utf8)
    }

    private static func qualifiedEntityTag(_ tag: Substring, module: String) -> String {
        let generated = tag.contains(/\scodeGenerationType\s*=\s*"class"/)
        let entity = tag.firstMatch(of: /\sname\s*=\s*"([^"]*)"/).map { String($0.1) }
        if let match = tag.firstMatch(of: /\srepresentedClassName\s*=\s*"([^"]*)"/) {
            let name = match.1
            let unqualified: Substring
            if name.hasPrefix(".") {
                unqualified = name.dropFirst()
            } else if generated, name.isEmpty || name == "NSManagedObject" {
                // Xcode generates a class named after the entity.
                unqualified = Substring(entity ?? "")
            } else if generated {
                unqualified = name
            } else {
                return String(tag)
            }
            guard !unqualified.isEmpty, !unqualified.contains(".") else { return String(tag) }
            return String(tag[..<match.1.startIndex]) + "\(module).\(unqualified)" + tag[match.1.endIndex...]
        }
        // A generated class with no class name written: named after the entity.
        guard generated, let entity, !entity.isEmpty, let close = tag.lastIndex(of: ">") else { return String(tag) }
        let end = tag[..<close].hasSuffix("/") ? tag.index(before: close) : close
        return String(tag[..<end]) + " representedClassName=\"\(module).\(entity)\"" + tag[end...]
    }

    private static func read(_ url: URL) throws(ModelError) -> Data {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ModelError(.unreadableFile(reason: "no contents file"), file: url)
        }
        return data
    }
}
