import Foundation

/// Finds the model a store was written with, among the models a lightweight migration may
/// see: the store's metadata records each entity's version hash, and the source model is
/// one whose entities have exactly those hashes.
///
/// Apple's Core Data searches the app's bundles (`Bundle.allBundles`). Strata looks, in
/// order, at the models of this process's coordinators, at the other versions of the
/// destination model's own file (the versions of its `.xcdatamodeld` or `.momd`, or the
/// `.xcdatamodel` folders beside it), and then at the bundles as Apple does.
enum MigrationSourceModels {
    /// The source model for a store's metadata, or `nil` when none of the models matches.
    static func model(
        forStoreMetadata metadata: [String: Any], destination: NSManagedObjectModel
    )
        -> NSManagedObjectModel?
    {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return nil }
        if let found = KnownModels.all().first(where: { matches($0, stored) }) { return found }
        for url in siblingVersionURLs(of: destination.fileURL) {
            if let model = NSManagedObjectModel(contentsOf: url), matches(model, stored) { return model }
        }
        let bundles = [Bundle.main] + Bundle.allBundles
        for url in ModelFileLocator.modelURLs(in: bundles, allVersions: true) {
            if let model = NSManagedObjectModel(contentsOf: url), matches(model, stored) { return model }
        }
        return nil
    }

    /// Whether the model's entities are exactly those the hashes name, each with its hash.
    static func matches(_ model: NSManagedObjectModel, _ stored: [String: Any]) -> Bool {
        let hashes = model.entityVersionHashesByName
        guard hashes.count == stored.count else { return false }
        return hashes.allSatisfy { name, hash in (stored[name] as? Data) == hash }
    }

    /// The other model versions stored with the model file at `url`.
    static func siblingVersionURLs(of url: URL?) -> [URL] {
        guard var url = url?.standardizedFileURL else { return [] }
        if url.lastPathComponent == "contents" { url = url.deletingLastPathComponent() }
        let fileManager = FileManager.default
        switch url.pathExtension {
        case "xcdatamodeld":
            guard let bundle = try? XcodeModelBundle(url: url) else { return [] }
            return bundle.versionNames.map { url.appendingPathComponent($0 + ".xcdatamodel") }
        case "momd":
            return CompiledModelFiles.versionURLs(inMomd: url)
        case "mom" where url.deletingLastPathComponent().pathExtension == "momd":
            return CompiledModelFiles.versionURLs(inMomd: url.deletingLastPathComponent())
        case "xcdatamodel":
            // The versions of a bundle: `.xcdatamodel` folders side by side.
            let parent = url.deletingLastPathComponent()
            let names = (try? fileManager.contentsOfDirectory(atPath: parent.path)) ?? []
            return names.filter { $0.hasSuffix(".xcdatamodel") }.sorted().map { parent.appendingPathComponent($0) }
                .filter { $0.standardizedFileURL != url }
        default:
            return []
        }
    }
}
