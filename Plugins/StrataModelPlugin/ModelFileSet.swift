import Foundation

/// The Core Data models among a target's files.
///
/// SwiftPM lists a model bundle as one file (`Model.xcdatamodeld`) or, in some versions,
/// as the files inside it; both lead to the same model. A lone `.xcdatamodel` is a model
/// of its own unless it is a version inside an `.xcdatamodeld`.
struct ModelFileSet {
    /// A model: its bundle or directory, and every file in it.
    struct Model {
        /// The `.xcdatamodeld` bundle or lone `.xcdatamodel` directory.
        let root: URL
        /// The model's name: the root's name without extension.
        var name: String { root.deletingPathExtension().lastPathComponent }
        /// The root and every file inside it, so that any edit runs the commands again.
        var inputs: [URL] { [root] + Self.files(under: root) }

        private static func files(under directory: URL) -> [URL] {
            guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
            else { return [] }
            let files = enumerator.compactMap { $0 as? URL }.filter { url in
                (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            }
            return files.sorted { $0.path < $1.path }
        }
    }

    /// The models, in path order, one per name.
    private(set) var models: [Model] = []
    /// Names shared by several models; only the first of each is in `models`.
    private(set) var duplicateNames: [String] = []

    /// The Xcode mapping models (`.xcmappingmodel` folders), in path order.
    private(set) var mappingModels: [URL] = []

    /// Finds the models among the files of the target in `directory`.
    init(sourceFiles: [URL], in directory: URL) {
        mappingModels = Set(sourceFiles.compactMap { Self.mappingModelRoot(of: $0) }.map(\.standardizedFileURL))
            .sorted { $0.path < $1.path }
        let roots = Set(sourceFiles.compactMap { Self.modelRoot(of: $0, in: directory) }.map(\.standardizedFileURL))
        var names = Set<String>()
        for root in roots.sorted(by: { $0.path < $1.path }) {
            let model = Model(root: root)
            if names.insert(model.name).inserted {
                models.append(model)
            } else if !duplicateNames.contains(model.name) {
                duplicateNames.append(model.name)
            }
        }
    }

    /// The `.xcmappingmodel` folder a file belongs to, or `nil`.
    static func mappingModelRoot(of file: URL) -> URL? {
        let components = file.standardizedFileURL.pathComponents
        guard let index = components.firstIndex(where: { $0.hasSuffix(".xcmappingmodel") }) else { return nil }
        return URL(fileURLWithPath: NSString.path(withComponents: Array(components[...index])), isDirectory: true)
    }

    /// The model a file of the target in `directory` belongs to: its outermost
    /// `.xcdatamodeld` ancestor (or itself), else its `.xcdatamodel` ancestor (or itself);
    /// `nil` for files of no model. Folders above the target's own do not count.
    static func modelRoot(of file: URL, in directory: URL) -> URL? {
        let components = file.standardizedFileURL.pathComponents
        let targetDepth = directory.standardizedFileURL.pathComponents.count
        guard components.count > targetDepth else { return nil }
        let candidates = components.indices.dropFirst(targetDepth)
        let bundle = candidates.first { components[$0].hasSuffix(".xcdatamodeld") }
        guard let index = bundle ?? candidates.first(where: { components[$0].hasSuffix(".xcdatamodel") }) else { return nil }
        return URL(fileURLWithPath: NSString.path(withComponents: Array(components[...index])), isDirectory: true)
    }
}
