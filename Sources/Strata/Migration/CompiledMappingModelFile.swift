import Foundation

/// Reads compiled mapping models (`.cdm`), which Xcode's mapping compiler writes from an
/// `.xcmappingmodel` and apps ship instead of it: an `NSKeyedArchiver` archive (a binary
/// property list, like a compiled `.mom`) whose root is an `NSMappingModel`.
///
/// The keys are those of Core Data's `NSCoding`:
/// - `NSMappingModel`: `NSEntityMappings` (an array; `NSEntityMappingsByName` repeats it);
/// - `NSEntityMapping`: `NSMappingName`, `NSMappingType` (the raw `NSEntityMappingType`),
///   `NSSourceEntityName`, `NSSourceEntityVersionHash`, `NSDestinationEntityName`,
///   `NSDestinationEntityVersionHash`, `NSSourceExpression`, `NSUserInfo`,
///   `NSEntityMigrationPolicyClassName`, `NSAttributeMappings`, `NSRelationshipMappings`;
/// - `NSPropertyMapping`: `NSDestinationPropertyName`, `NSValueExpression`, `NSUserInfo`
///   (and `NSPropertyTransforms`, which nothing public reads).
///
/// A compiled mapping model is complete: its expressions are those Xcode's compiler made, and
/// it is not resolved against the models again. A source expression Strata cannot read (the
/// `FETCH(…)` expression Xcode writes) is left out: the migration then fetches every object
/// of the source entity, which is what that expression asks.
enum CompiledMappingModelFile {
    /// Whether the data is a binary property list (a compiled mapping model, not Xcode's XML).
    static func isCompiled(_ data: Data) -> Bool { data.starts(with: Data("bplist00".utf8)) }

    static func parse(_ data: Data, file: URL?) throws -> NSMappingModel {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data)
        } catch {
            throw damaged(file, "it is not a keyed archive (\(error.reason))")
        }
        let root = archive.root
        guard archive.className(of: root) == "NSMappingModel" else {
            throw damaged(file, "the archive holds no NSMappingModel")
        }
        let expressions = ArchivedExpressionReader(archive: archive)
        let model = NSMappingModel()
        var mappings: [NSEntityMapping] = []
        for item in archive.elements(archive.field(root, "NSEntityMappings")) ?? [] {
            guard archive.className(of: item) == "NSEntityMapping" else {
                throw damaged(file, "an entity mapping is not an archived NSEntityMapping")
            }
            let mapping = NSEntityMapping()
            mapping.name = archive.string(archive.field(item, "NSMappingName"))
            guard
                let type = NSEntityMappingType(rawValue: UInt(max(0, archive.integer(archive.field(item, "NSMappingType")) ?? 0)))
            else {
                throw damaged(file, "the entity mapping \(mapping.name ?? "?") has an unknown mapping type")
            }
            mapping.mappingType = type
            mapping.sourceEntityName = archive.string(archive.field(item, "NSSourceEntityName"))
            mapping.destinationEntityName = archive.string(archive.field(item, "NSDestinationEntityName"))
            mapping.sourceEntityVersionHash = archive.plainValue(archive.field(item, "NSSourceEntityVersionHash")) as? Data
            mapping.destinationEntityVersionHash =
                archive.plainValue(archive.field(item, "NSDestinationEntityVersionHash")) as? Data
            mapping.entityMigrationPolicyClassName = archive.string(archive.field(item, "NSEntityMigrationPolicyClassName"))
            mapping.userInfo = archive.plainValue(archive.field(item, "NSUserInfo")) as? [AnyHashable: Any]
            if let source = archive.field(item, "NSSourceExpression") {
                mapping.sourceExpression = expressions.node(source, depth: 0).map(NSExpression.init(node:))
            }
            mapping.attributeMappings = try propertyMappings(archive.field(item, "NSAttributeMappings"), archive, file)
            mapping.relationshipMappings = try propertyMappings(archive.field(item, "NSRelationshipMappings"), archive, file)
            mappings.append(mapping)
        }
        model.entityMappings = mappings
        return model
    }

    private static func propertyMappings(
        _ value: PropertyListValue?, _ archive: KeyedArchive, _ file: URL?
    ) throws -> [NSPropertyMapping] {
        let expressions = ArchivedExpressionReader(archive: archive)
        return try (archive.elements(value) ?? []).map { item in
            guard archive.className(of: item) == "NSPropertyMapping" else {
                throw damaged(file, "a property mapping is not an archived NSPropertyMapping")
            }
            let mapping = NSPropertyMapping()
            mapping.name = archive.string(archive.field(item, "NSDestinationPropertyName"))
            mapping.userInfo = archive.plainValue(archive.field(item, "NSUserInfo")) as? [AnyHashable: Any]
            if let expression = archive.field(item, "NSValueExpression") {
                guard let node = expressions.node(expression, depth: 0) else {
                    throw damaged(file, "the value expression of \(mapping.name ?? "?") cannot be read")
                }
                mapping.valueExpression = NSExpression(node: node)
                // The plain `$source.<name>` form, which a migration in SQL reads directly.
                if case .member(.variable(NSMigrationSourceObjectKey), let path) = node, !path.contains(".") {
                    mapping.sourcePropertyName = path
                }
            }
            return mapping
        }
    }

    private static func damaged(_ file: URL?, _ reason: String) -> NSError {
        CoreDataError.make(
            NSFileReadCorruptFileError, "The compiled mapping model \(file?.path ?? "") is damaged: \(reason).",
            userInfo: file.map { [NSURLErrorKey: $0] } ?? [:])
    }
}
