import Foundation

/// Migrates a store from one model to another with a mapping model, object by object, in
/// Apple's three passes: every entity mapping's policy creates the destination objects of
/// its source objects; then gives them their relationships; then validates; the destination
/// context is saved and each policy told that its mapping is done.
///
/// ```swift
/// let manager = NSMigrationManager(sourceModel: v2, destinationModel: v3)
/// try manager.migrateStore(
///     from: oldURL, type: NSSQLiteStoreType, options: nil, with: mapping,
///     toDestinationURL: newURL, destinationType: NSSQLiteStoreType, destinationOptions: nil)
/// ```
///
/// The source store is only read: a migration that fails leaves it as it was, and removes
/// the destination store it created. (The lightweight migration of a store added with the
/// automatic options does not come here: it migrates in SQL, without objects.)
open class NSMigrationManager: NSObject, PredicateFunctionTarget, @unchecked Sendable {
    /// The model of the stores migrated from.
    open private(set) var sourceModel: NSManagedObjectModel
    /// The model of the stores migrated to.
    open private(set) var destinationModel: NSManagedObjectModel
    /// The mapping model of the migration under way (or of the last one).
    open private(set) var mappingModel: NSMappingModel!
    /// The context holding the source store's objects during a migration.
    open private(set) var sourceContext: NSManagedObjectContext!
    /// The context in which the destination objects are created during a migration.
    open private(set) var destinationContext: NSManagedObjectContext!
    /// The entity mapping being migrated.
    open private(set) var currentEntityMapping: NSEntityMapping!
    /// How far the migration is, from 0 to 1; it only grows while a migration runs.
    open private(set) var migrationProgress: Float = 0
    /// Arbitrary data for the app's policies.
    open var userInfo: [AnyHashable: Any]?
    /// Apple's SQLite stores may migrate with a manager of their own; Strata's explicit
    /// migration is the same for every store type, so this is only kept.
    open var usesStoreSpecificMigrationManager = false

    private var cancellation: NSError?
    /// Per entity mapping name: each source object's destination objects, and back.
    private var destinationsBySource: [String: [NSManagedObjectID: [NSManagedObject]]] = [:]
    private var sourcesByDestination: [String: [ObjectIdentifier: [NSManagedObject]]] = [:]
    /// Per entity mapping name, the destination objects in the order they were associated.
    private var destinationOrder: [String: [NSManagedObject]] = [:]

    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        super.init()
    }

    // MARK: Migrating

    /// Migrates the store at `sourceURL` into a store at `dURL`, following the mapping model
    /// (`nil`: the mapping is inferred, as for lightweight migration).
    ///
    /// Errors: the source store does not open with the source model (134150 with the cause);
    /// the destination cannot be created (134160); a policy throws (its error) or the mapping
    /// cannot run (134110 naming the entity mapping); a destination object is invalid (134110
    /// naming the entity and property, the validation error underneath); cancelled (the error
    /// given to `cancelMigrationWithError`). The source store is never written.
    open func migrateStore(
        from sourceURL: URL, type sourceType: String, options sOptions: [AnyHashable: Any]? = nil,
        with mappings: NSMappingModel?, toDestinationURL dURL: URL, destinationType dType: String,
        destinationOptions dOptions: [AnyHashable: Any]? = nil
    ) throws {
        if dType != NSInMemoryStoreType {
            try StoreFile.requireOwnableFile(
                dURL, operation: "migrate to", code: NSMigrationManagerDestinationStoreError)
        }
        let mapping =
            try mappings
            ?? NSMappingModel.inferredMappingModel(
                forSourceModel: sourceModel, destinationModel: destinationModel)
        // SQLite's errors on the way (reading the source, writing the destination) are 134110.
        try StoreFile.translatingSQLiteErrors(sourceURL, code: NSMigrationError) {
            try run(mapping, from: sourceURL, sourceType, sOptions, to: dURL, dType, dOptions)
        }
    }

    /// The same as `migrateStore(from:type:…)`, with the older spelling of the source type.
    open func migrateStore(
        from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil,
        with mappings: NSMappingModel?, toDestinationURL dURL: URL, destinationType dStoreType: String,
        destinationOptions dOptions: [AnyHashable: Any]? = nil
    ) throws {
        try migrateStore(
            from: sourceURL, type: sStoreType, options: sOptions, with: mappings, toDestinationURL: dURL,
            destinationType: dStoreType, destinationOptions: dOptions)
    }

    /// The same, with the store types as `NSPersistentStore.StoreType` (iOS 15 spelling).
    open func migrateStore(
        from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil,
        mapping mappingModel: NSMappingModel?, to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
        options destinationOptions: [AnyHashable: Any]? = nil
    ) throws {
        try migrateStore(
            from: sourceURL, type: sourceType.rawValue, options: sourceOptions, with: mappingModel,
            toDestinationURL: destinationURL, destinationType: destinationType.rawValue,
            destinationOptions: destinationOptions)
    }

    /// Cancels the migration under way: it stops at the next object and `migrateStore`
    /// throws `error`.
    open func cancelMigrationWithError(_ error: any Error) {
        cancellation = error as NSError
    }

    /// Resets the manager's associations and contexts for another migration.
    open func reset() {
        destinationsBySource = [:]
        sourcesByDestination = [:]
        destinationOrder = [:]
        cancellation = nil
        currentEntityMapping = nil
        migrationProgress = 0
    }

    // MARK: Associations

    /// Records that `destinationInstance` was made from `sourceInstance` by the entity mapping.
    open func associate(
        sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject,
        for entityMapping: NSEntityMapping
    ) {
        let name = entityMapping.name ?? ""
        destinationsBySource[name, default: [:]][sourceInstance.objectID, default: []].append(destinationInstance)
        sourcesByDestination[name, default: [:]][ObjectIdentifier(destinationInstance), default: []].append(sourceInstance)
        destinationOrder[name, default: []].append(destinationInstance)
    }

    /// The destination objects the entity mapping made from the source objects (all of the
    /// mapping's destination objects when `sourceInstances` is `nil`).
    open func destinationInstances(
        forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?
    ) -> [NSManagedObject] {
        guard let sourceInstances else { return destinationOrder[mappingName] ?? [] }
        let table = destinationsBySource[mappingName] ?? [:]
        return sourceInstances.flatMap { table[$0.objectID] ?? [] }
    }

    /// The source objects the entity mapping made the destination objects from (all of the
    /// mapping's source objects when `destinationInstances` is `nil`).
    open func sourceInstances(
        forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?
    ) -> [NSManagedObject] {
        let table = sourcesByDestination[mappingName] ?? [:]
        guard let destinationInstances else {
            return (destinationOrder[mappingName] ?? []).flatMap { table[ObjectIdentifier($0)] ?? [] }
        }
        return destinationInstances.flatMap { table[ObjectIdentifier($0)] ?? [] }
    }

    /// The source model's entity of the mapping.
    open func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination model's entity of the mapping.
    open func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    // MARK: Functions of expressions

    /// `FUNCTION($manager, …)` in a mapping model's expressions: the selectors Xcode writes.
    func predicateFunctionValue(_ selector: String, arguments: [Any?]) -> Any? {
        let first = arguments.first.flatMap(PredicateValues.normalize)
        let second = arguments.count > 1 ? arguments[1] : nil
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            guard let name = PredicateValues.string(first) else { return nil }
            return destinationInstances(forEntityMappingName: name, sourceInstances: Self.objects(second))
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            guard let name = PredicateValues.string(first) else { return nil }
            return destinationInstances(forSourceRelationshipNamed: name, sourceInstances: Self.objects(second))
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            guard let name = PredicateValues.string(first) else { return nil }
            return sourceInstances(forEntityMappingName: name, destinationInstances: Self.objects(second))
        case "fetchRequestForSourceEntityNamed:predicateString:":
            guard let name = PredicateValues.string(first) else { return nil }
            return Self.fetchRequest(entityName: name, predicate: PredicateValues.string(second))
        case "sourceContext": return sourceContext
        case "destinationContext": return destinationContext
        case "sourceModel": return sourceModel
        case "destinationModel": return destinationModel
        case "userInfo": return userInfo
        default: return nil
        }
    }

    /// A relationship's destination objects through whichever mapping migrates each source
    /// object's entity: what inferred mappings write for relationships. (The relationship's
    /// name only documents the expression: the objects are already those it holds.)
    func destinationInstances(forSourceRelationshipNamed name: String, sourceInstances: [NSManagedObject]) -> [NSManagedObject] {
        var result: [NSManagedObject] = []
        for source in sourceInstances {
            let sourceEntityName = source.entity.name
            let mappings = (mappingModel?.entityMappings ?? []).filter { $0.sourceEntityName == sourceEntityName }
            for mapping in mappings {
                result += destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: [source])
            }
        }
        return result
    }

    /// The managed objects of an expression's value: one object, or a collection of them.
    static func objects(_ value: Any?) -> [NSManagedObject] {
        guard let value = PredicateValues.normalize(value) else { return [] }
        if let object = value as? NSManagedObject { return [object] }
        return (PredicateValues.elements(value) ?? []).compactMap { $0 as? NSManagedObject }
    }

    /// The request Xcode's source expressions make: the entity's own objects (not its
    /// subentities', which their own mappings migrate) matching the predicate.
    static func fetchRequest(entityName: String, predicate: String?) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        request.includesSubentities = false
        if let predicate, predicate != "TRUEPREDICATE", let parsed = try? NSPredicate.parse(format: predicate) {
            request.predicate = parsed
        }
        return request
    }

    // MARK: Evaluating and assigning

    /// The value of a property mapping's expression, with `$source`, `$destination`,
    /// `$manager`, `$entityMapping`, `$propertyMapping` and `$entityPolicy` bound. An error
    /// a policy function threw is thrown here.
    func evaluate(
        _ expression: NSExpression, source: NSManagedObject?, destination: NSManagedObject?, mapping: NSEntityMapping,
        propertyMapping: NSPropertyMapping?, policy: NSEntityMigrationPolicy
    ) throws -> Any? {
        var variables: [String: Any] = [
            NSMigrationManagerKey: self, NSMigrationEntityMappingKey: mapping, NSMigrationEntityPolicyKey: policy,
        ]
        if let source { variables[NSMigrationSourceObjectKey] = source }
        if let destination { variables[NSMigrationDestinationObjectKey] = destination }
        if let propertyMapping { variables[NSMigrationPropertyMappingKey] = propertyMapping }
        _ = MigrationFunctionErrors.take()
        let value = PredicateEvaluator.value(of: expression.node, with: source, variables: variables)
        if let error = MigrationFunctionErrors.take() { throw error }
        return value
    }

    /// Sets a destination property to an expression's value: a to-one takes the first
    /// object of a collection, a to-many a set (ordered for an ordered one) of the objects;
    /// an attribute its value converted to the attribute's type.
    func assign(_ value: Any?, to key: String, of object: NSManagedObject, mapping: NSEntityMapping) throws {
        guard let property = object.entity.propertiesByName[key] else {
            throw Self.error(
                "The entity mapping \(mapping.name ?? "?") sets \(key), which \(object.entity.name ?? "?") does not have.",
                entity: object.entity.name, property: key)
        }
        if let relationship = property as? NSRelationshipDescription {
            let objects = Self.objects(value)
            if relationship.isToMany {
                object.setValue(relationship.isOrdered ? NSOrderedSet(array: objects) : NSSet(array: objects), forKey: key)
            } else {
                object.setValue(objects.first, forKey: key)
            }
        } else {
            object.setValue(PredicateValues.normalize(value), forKey: key)
        }
    }

    static func error(
        _ reason: String, entity: String? = nil, property: String? = nil, underlying: NSError? = nil
    )
        -> NSError
    {
        var info: [String: Any] = ["reason": reason]
        if let entity { info["entity"] = entity }
        if let property { info["property"] = property }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return CoreDataError.make(NSMigrationError, reason, userInfo: info)
    }

    // MARK: The passes

    private func run(
        _ mapping: NSMappingModel, from sourceURL: URL, _ sourceType: String, _ sourceOptions: [AnyHashable: Any]?,
        to destinationURL: URL, _ destinationType: String, _ destinationOptions: [AnyHashable: Any]?
    ) throws {
        reset()
        mappingModel = mapping
        try mapping.resolve(sourceModel: sourceModel, destinationModel: destinationModel)
        var readOnly = sourceOptions ?? [:]
        readOnly[NSReadOnlyPersistentStoreOption] = true
        readOnly[NSMigratePersistentStoresAutomaticallyOption] = false
        let sourceCoordinator = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
        do {
            _ = try sourceCoordinator.addPersistentStore(
                ofType: sourceType, configurationName: nil, at: sourceURL, options: readOnly)
        } catch {
            throw CoreDataError.make(
                NSMigrationManagerSourceStoreError, "The source store cannot be opened with the source model.",
                userInfo: [NSURLErrorKey: sourceURL, NSUnderlyingErrorKey: error as NSError])
        }
        defer { for store in sourceCoordinator.persistentStores { try? sourceCoordinator.remove(store) } }
        let existed = FileManager.default.fileExists(atPath: destinationURL.path)
        var plainOptions = destinationOptions ?? [:]
        plainOptions[NSMigratePersistentStoresAutomaticallyOption] = false
        plainOptions[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        let destinationCoordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
        do {
            _ = try destinationCoordinator.addPersistentStore(
                ofType: destinationType, configurationName: nil, at: destinationURL, options: plainOptions)
        } catch {
            throw CoreDataError.make(
                NSMigrationManagerDestinationStoreError, "The destination store cannot be created.",
                userInfo: [NSURLErrorKey: destinationURL, NSUnderlyingErrorKey: error as NSError])
        }
        let sourceContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        sourceContext.persistentStoreCoordinator = sourceCoordinator
        sourceContext.undoManager = nil
        let destinationContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        destinationContext.persistentStoreCoordinator = destinationCoordinator
        destinationContext.undoManager = nil
        self.sourceContext = sourceContext
        self.destinationContext = destinationContext
        // The objects of both contexts hold one another through their relationships, cycles
        // that would outlive the manager: faulting them when the migration is over breaks them.
        defer {
            sourceContext.reset()
            destinationContext.reset()
        }
        do {
            try passes(mapping)
        } catch {
            for store in destinationCoordinator.persistentStores { try? destinationCoordinator.remove(store) }
            if !existed { try? NSPersistentStoreCoordinator.removeStoreFiles(at: destinationURL, type: destinationType) }
            throw error
        }
        for store in destinationCoordinator.persistentStores { try destinationCoordinator.remove(store) }
    }

    private func passes(_ mapping: NSMappingModel) throws {
        let entityMappings = mapping.entityMappings ?? []
        var policies: [NSEntityMigrationPolicy] = []
        var sources: [[NSManagedObject]] = []
        for entityMapping in entityMappings {
            policies.append(try policy(for: entityMapping))
            sources.append(try sourceObjects(of: entityMapping))
        }
        let total = Float(max(1, sources.reduce(0) { $0 + $1.count } * 2 + entityMappings.count))
        var done: Float = 0
        func advance() throws {
            done += 1
            migrationProgress = min(1, max(migrationProgress, done / total))
            if let cancellation { throw cancellation }
        }
        // Pass 1: destination objects.
        for (index, entityMapping) in entityMappings.enumerated() {
            currentEntityMapping = entityMapping
            let policy = policies[index]
            try policy.begin(entityMapping, with: self)
            if entityMapping.mappingType != .removeEntityMappingType, entityMapping.mappingType != .addEntityMappingType {
                for source in sources[index] {
                    try policy.createDestinationInstances(forSource: source, in: entityMapping, manager: self)
                    try advance()
                }
            }
            try policy.endInstanceCreation(forMapping: entityMapping, manager: self)
        }
        // Pass 2: relationships.
        for (index, entityMapping) in entityMappings.enumerated() {
            currentEntityMapping = entityMapping
            let policy = policies[index]
            for destination in destinationInstances(forEntityMappingName: entityMapping.name ?? "", sourceInstances: nil) {
                try policy.createRelationships(forDestination: destination, in: entityMapping, manager: self)
                try advance()
            }
            try policy.endRelationshipCreation(forMapping: entityMapping, manager: self)
        }
        // Pass 3: validation, then the save.
        for (index, entityMapping) in entityMappings.enumerated() {
            currentEntityMapping = entityMapping
            try policies[index].performCustomValidation(forMapping: entityMapping, manager: self)
            try advance()
        }
        do {
            try destinationContext.save()
        } catch let error as NSError {
            throw Self.validationError(error)
        }
        for (index, entityMapping) in entityMappings.enumerated() {
            currentEntityMapping = entityMapping
            try policies[index].end(entityMapping, manager: self)
        }
        migrationProgress = 1
    }

    /// A failed save as Apple's migration reports it: 134110, naming the entity and property
    /// of the (first) invalid object, the validation error underneath.
    static func validationError(_ error: NSError) -> NSError {
        var first = error
        if let details = error.userInfo[NSDetailedErrorsKey] as? [NSError], let inner = details.first { first = inner }
        let object = first.userInfo[NSValidationObjectErrorKey] as? NSManagedObject
        let key = first.userInfo[NSValidationKeyErrorKey] as? String
        let entity = object?.entity.name
        return Self.error(
            "A destination object of the migration is invalid: \(entity ?? "?").\(key ?? "?") (\(first.localizedDescription)).",
            entity: entity, property: key, underlying: error)
    }

    /// The policy object of an entity mapping: its class found by name, or the default.
    private func policy(for mapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty else { return NSEntityMigrationPolicy() }
        guard let type = NSEntityMigrationPolicy.policyClass(named: name) else {
            throw CoreDataError.make(
                NSEntityMigrationPolicyError,
                "The migration policy class \(name) of the entity mapping \(mapping.name ?? "?") cannot be found.",
                userInfo: ["entityMapping": mapping.name ?? "", "className": name])
        }
        return type.init()
    }

    /// The source objects of an entity mapping: its source expression's objects when it has
    /// one Strata can evaluate, else every object of the source entity (not its subentities).
    private func sourceObjects(of mapping: NSEntityMapping) throws -> [NSManagedObject] {
        guard mapping.mappingType != .addEntityMappingType, mapping.mappingType != .removeEntityMappingType,
            let entityName = mapping.sourceEntityName, sourceModel.entitiesByName[entityName] != nil
        else { return [] }
        var request = Self.fetchRequest(entityName: entityName, predicate: nil)
        if let expression = mapping.sourceExpression {
            let value = PredicateEvaluator.value(of: expression.node, with: nil, variables: [NSMigrationManagerKey: self])
            if let made = value as? NSFetchRequest<NSManagedObject> {
                request = made
            } else if let objects = PredicateValues.elements(value) {
                return objects.compactMap { $0 as? NSManagedObject }
            }
        }
        request.sortDescriptors = nil
        let objects = try sourceContext.fetch(request)
        // Rows in key order, so that the destination store's keys follow the source's.
        return objects.sorted { Self.key(of: $0) < Self.key(of: $1) }
    }

    private static func key(of object: NSManagedObject) -> Int64 { object.objectID.primaryKey }
}
