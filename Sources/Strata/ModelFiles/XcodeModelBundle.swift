import Foundation

/// A versioned Xcode model bundle (`Name.xcdatamodeld`): one `.xcdatamodel` directory per
/// version, and `.xccurrentversion` naming the current one.
///
/// ```swift
/// let bundle = try XcodeModelBundle(url: URL(fileURLWithPath: "Moody.xcdatamodeld"))
/// let current = try bundle.currentModel()
/// let first = try bundle.model(named: "Moody")
/// ```
///
/// Version names are arbitrary; their order means nothing (migrations match models by
/// version hashes, not by names).
public struct XcodeModelBundle: Sendable {
    /// The bundle directory.
    public let url: URL
    /// The names of the versions, without the `.xcdatamodel` extension, sorted.
    public let versionNames: [String]
    /// The name of the current version.
    public let currentVersionName: String

    /// Reads the bundle's version list and current version.
    ///
    /// The current version is the one `.xccurrentversion` names. Without that file, or when
    /// it names none, a bundle's only version is current; with several, the first by name is
    /// taken (Xcode's choice there is undocumented; see DEVIATIONS.md).
    public init(url: URL) throws(ModelError) {
        self.url = url
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelError(.unreadableFile(reason: error.localizedDescription), file: url)
        }
        versionNames = names.filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }.sorted()
        guard let first = versionNames.first else { throw ModelError(.missingModelVersion(name: nil), file: url) }
        let marker = url.appendingPathComponent(".xccurrentversion")
        if let data = FileManager.default.contents(atPath: marker.path) {
            guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
                throw ModelError(.malformedXML(reason: "unreadable .xccurrentversion"), file: marker)
            }
            // A marker without a name (an empty dictionary, seen in real bundles) leaves the
            // choice to the fallback, as when there is no marker.
            guard let name = plist["_XCCurrentVersionName"] as? String else {
                currentVersionName = first
                return
            }
            let version = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
            guard versionNames.contains(version) else { throw ModelError(.missingModelVersion(name: version), file: marker) }
            currentVersionName = version
        } else {
            currentVersionName = first
        }
    }

    /// The `contents` file of a version.
    public func contentsURL(ofVersion name: String) -> URL {
        url.appendingPathComponent(name + ".xcdatamodel").appendingPathComponent("contents")
    }

    /// Reads and validates the version with the given name.
    public func model(named name: String) throws(ModelError) -> NSManagedObjectModel {
        guard versionNames.contains(name) else { throw ModelError(.missingModelVersion(name: name), file: url) }
        return try NSManagedObjectModel.load(contentsOf: contentsURL(ofVersion: name))
    }

    /// Reads and validates the current version.
    public func currentModel() throws(ModelError) -> NSManagedObjectModel {
        try model(named: currentVersionName)
    }

    /// Reads every version, by name.
    public func allModels() throws(ModelError) -> [String: NSManagedObjectModel] {
        var models: [String: NSManagedObjectModel] = [:]
        for name in versionNames { models[name] = try model(named: name) }
        return models
    }
}

extension NSManagedObjectModel {
    /// Reads a model file: an `.xcdatamodeld` bundle (its current version), an
    /// `.xcdatamodel` directory, the `contents` XML file inside one, or the `.momd` (its
    /// current version) or `.mom` Strata's build plugin makes (see `CompiledModelFiles`).
    /// `nil` when the file cannot be read, is a binary model compiled by Xcode, or the model
    /// is not valid; `load(contentsOf:)` says why.
    public convenience init?(contentsOf url: URL) {
        self.init()
        do {
            try populate(contentsOf: url)
        } catch {
            return nil
        }
        classModuleNames = ModelFileLocator.moduleNames(forResourceAt: url)
        fileURL = url
    }

    /// Reads and validates a model file like `init?(contentsOf:)`, throwing an error that
    /// names the file, line, entity and property of the first problem found.
    public static func load(contentsOf url: URL) throws(ModelError) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try model.populate(contentsOf: url)
        model.classModuleNames = ModelFileLocator.moduleNames(forResourceAt: url)
        model.fileURL = url
        return model
    }

    /// Reads and validates model XML in the `contents` format. `file` only serves to name
    /// the source in errors.
    public static func load(xml data: Data, file: URL? = nil) throws(ModelError) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try XcodeModelReader.read(data, file: file, into: model)
        try model.validateForLoading(file: file)
        return model
    }

    /// Reads a model file as `load(contentsOf:)` does, but returns every problem of the model
    /// (errors and warnings, each naming the `contents` file and its line) instead of
    /// refusing the model at its first error: for tools that report them all, as
    /// `strata model validate` does. Only a file that cannot be read as a model at all (no
    /// such file, XML that is not well formed, a damaged compiled model) throws.
    ///
    /// ```swift
    /// let check = try NSManagedObjectModel.check(contentsOf: url)
    /// for problem in check.problems { print(problem) }
    /// ```
    public static func check(
        contentsOf url: URL
    ) throws(ModelError) -> (
        model: NSManagedObjectModel, contents: URL, problems: [ModelError]
    ) {
        let model = NSManagedObjectModel()
        let contents = try model.read(contentsOf: url)
        model.classModuleNames = ModelFileLocator.moduleNames(forResourceAt: url)
        model.fileURL = url
        let problems = model.validationErrors().map { problem in
            var problem = problem
            problem.file = problem.file ?? contents
            return problem
        }
        return (model, contents, problems)
    }

    private func populate(contentsOf url: URL) throws(ModelError) {
        let contents = try read(contentsOf: url)
        try validateForLoading(file: contents)
    }

    /// Reads the model file into this model without validating it; returns the file the
    /// model was read from (a version's `contents`, a `.mom`).
    private func read(contentsOf url: URL) throws(ModelError) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError(.unreadableFile(reason: "no such file"), file: url)
        }
        let contents: URL
        switch url.pathExtension {
        case "xcdatamodeld":
            let bundle = try XcodeModelBundle(url: url)
            contents = bundle.contentsURL(ofVersion: bundle.currentVersionName)
        case "xcdatamodel":
            contents = url.appendingPathComponent("contents")
        case "momd" where isDirectory.boolValue:
            contents = try CompiledModelFiles.currentVersionURL(inMomd: url)
        default:
            guard !isDirectory.boolValue else { throw ModelError(.notAModelFile, file: url) }
            contents = url
        }
        guard let data = FileManager.default.contents(atPath: contents.path) else {
            throw ModelError(.unreadableFile(reason: "no contents file"), file: contents)
        }
        if CompiledModelFiles.isBinaryPropertyList(data) {
            try CompiledModelDecoder.read(data, file: contents, into: self)
        } else {
            try XcodeModelReader.read(data, file: contents, into: self)
        }
        return contents
    }

    private func validateForLoading(file: URL?) throws(ModelError) {
        if var first = validationErrors().first(where: { $0.severity == .error }) {
            first.file = first.file ?? file
            throw first
        }
    }
}

/// Finds model files in bundles, for `NSManagedObjectModel.mergedModel(from:)` and the
/// persistent container.
enum ModelFileLocator {
    /// The modules whose classes a model copied into a SwiftPM resource bundle
    /// (`<Package>_<Target>.resources/Model.xcdatamodeld`) most likely names: the target, for
    /// each way of splitting the bundle's name.
    static func moduleNames(forResourceAt url: URL) -> [String] {
        guard let bundle = url.pathComponents.last(where: { $0.hasSuffix(".resources") }) else { return [] }
        var name = String(bundle.dropLast(".resources".count))
        // Test builds name the bundle of a library target `<Package>_<Target>-tool.resources`.
        if name.hasSuffix("-tool") { name = String(name.dropLast("-tool".count)) }
        var candidates: [String] = []
        var rest = Substring(name)
        while let underscore = rest.firstIndex(of: "_") {
            rest = rest[rest.index(after: underscore)...]
            if !rest.isEmpty { candidates.append(moduleName(ofTarget: String(rest))) }
        }
        return candidates
    }

    /// The Swift module SwiftPM makes of a target (its "c99 name"): characters that cannot be
    /// in an identifier become `_`, and a leading digit gets one before it (`my-app` is `my_app`).
    static func moduleName(ofTarget target: String) -> String {
        var name = String(
            String.UnicodeScalarView(
                target.unicodeScalars.map { scalar in
                    scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" ? scalar : "_"
                }))
        if let first = name.unicodeScalars.first, ("0"..."9").contains(first) { name = "_" + name }
        return name
    }

    /// The model files in the bundles' resource directories and in the resource bundles those
    /// hold (`Resources`, SwiftPM's `<Package>_<Target>.resources`, `*.bundle`): each `.momd`
    /// and `.xcdatamodeld` (its current version, or every version with `allVersions`) and each
    /// `.mom` and `.xcdatamodel` that is not inside a bundle. Other folders are not searched: beside an
    /// executable lie the build's object folders, thousands of files that a search would list
    /// for every container made.
    static func modelURLs(in bundles: [Bundle], allVersions: Bool = false) -> [URL] {
        var urls: [URL] = []
        var seen = Set<String>()
        for bundle in bundles {
            // The resource directory may lie inside the bundle directory (…/Resources):
            // a model found from both roots counts once.
            let roots = [bundle.resourceURL, bundle.bundleURL].compactMap { $0?.standardizedFileURL }
            for root in roots {
                for url in modelURLs(under: root, depth: 2, allVersions: allVersions)
                where seen.insert(url.standardizedFileURL.path).inserted {
                    urls.append(url)
                }
            }
        }
        return urls
    }

    private static func modelURLs(under directory: URL, depth: Int, allVersions: Bool) -> [URL] {
        guard depth >= 0,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [] }
        // Strata's build plugin puts a compiled form (`.momd`, `.mom`) beside resources that may
        // also hold the model's source; the model counts once, as its compiled form.
        let compiled = Set(
            names.filter { $0.hasSuffix(".momd") || $0.hasSuffix(".mom") }.map {
                URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent
            })
        var urls: [URL] = []
        for name in names.sorted() {
            let url = directory.appendingPathComponent(name)
            if name.hasSuffix(".momd") {
                urls += allVersions ? CompiledModelFiles.versionURLs(inMomd: url) : [url]
            } else if name.hasSuffix(".mom") {
                urls.append(url)
            } else if (name.hasSuffix(".xcdatamodeld") || name.hasSuffix(".xcdatamodel"))
                && compiled.contains(URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent)
            {
                continue
            } else if name.hasSuffix(".xcdatamodeld") {
                if allVersions, let bundle = try? XcodeModelBundle(url: url) {
                    urls += bundle.versionNames.map { url.appendingPathComponent($0 + ".xcdatamodel") }
                } else {
                    urls.append(url)
                }
            } else if name.hasSuffix(".xcdatamodel") {
                urls.append(url)
            } else if isResourceFolder(name) {
                urls += modelURLs(under: url, depth: depth - 1, allVersions: allVersions)
            }
        }
        return urls
    }

    private static func isResourceFolder(_ name: String) -> Bool {
        name == "Resources" || name.hasSuffix(".resources") || name.hasSuffix(".bundle")
    }
}
