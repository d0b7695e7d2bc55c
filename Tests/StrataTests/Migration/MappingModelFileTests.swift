import Foundation
import Testing

@testable import Strata

/// The mapping models of the test corpus (`.xcmappingmodel` of six apps): each loads, is found
/// in a bundle by its two models, and migrates a store built in code with its source model,
/// with the apps' own migration policies written here as the apps write them.
@Suite(.enabled(if: TestCorpus.isAvailable)) struct MappingModelFileTests {
    static var mappings: URL { TestCorpus.root.appendingPathComponent("mappings") }

    /// File → (model folder, source version, destination version, entity mappings).
    static let files: [String: (models: String, source: String, destination: String, entityMappings: Int)] = [
        "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V1.FromV2": (
            "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V1", "Advanced.EvolutionDemo.V2", "Advanced.EvolutionDemo.V1", 1
        ),
        "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V2.FromV1": (
            "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V1", "Advanced.EvolutionDemo.V1", "Advanced.EvolutionDemo.V2", 1
        ),
        "alemar11__CoreDataPlus__V2toV3": ("alemar11__CoreDataPlus__SampleModel", "SampleModel2", "SampleModel3", 5),
        "jessesquires__JSQCoreDataKit__Version1_to_Version2": (
            "jessesquires__JSQCoreDataKit__ExampleModel", "Version 1", "Version 2", 1
        ),
        "jessesquires__JSQCoreDataKit__Version2_to_Version3": (
            "jessesquires__JSQCoreDataKit__ExampleModel", "Version 2", "Version 3", 2
        ),
        "objcio__core-data__Moody_2-Moody_3": ("objcio__core-data__Moody", "Moody 2", "Moody 3", 3),
        "objcio__core-data__Moody_3-Moody_4": ("objcio__core-data__Moody", "Moody 3", "Moody 4", 3),
        "objcio__core-data__Moody_4-Moody_5": ("objcio__core-data__Moody", "Moody 4", "Moody 5", 2),
        "objcio__core-data__Moody_5-Moody_6": ("objcio__core-data__Moody", "Moody 5", "Moody 6", 3),
        "wibosco__CoreDataMigrationRevised-Example__Migration2to3ModelMapping": (
            "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration_Example", "CoreDataMigration_Example 2",
            "CoreDataMigration_Example 3", 2
        ),
        "yonaskolb__XcodeGen__Model": ("yonaskolb__XcodeGen__Model", "Model", "Model 2", 1),
    ]

    static func url(_ file: String) -> URL { mappings.appendingPathComponent(file + ".xcmappingmodel") }

    static func models(_ file: String) throws -> (NSManagedObjectModel, NSManagedObjectModel) {
        let entry = try #require(files[file])
        let folder = TestCorpus.models.appendingPathComponent(entry.models)
        return (
            try NSManagedObjectModel.load(contentsOf: folder.appendingPathComponent(entry.source + ".xcdatamodel")),
            try NSManagedObjectModel.load(contentsOf: folder.appendingPathComponent(entry.destination + ".xcdatamodel"))
        )
    }

    /// A mapping model as the app's tests use it: the policies' module names made this
    /// target's (CoreDataPlus's tests do the same with `REPLACE_AT_RUNTIME`).
    static func mapping(_ file: String) throws -> NSMappingModel {
        let mapping = try #require(NSMappingModel(contentsOf: url(file)))
        for entityMapping in mapping.entityMappings {
            guard let name = entityMapping.entityMigrationPolicyClassName, let dot = name.lastIndex(of: ".") else { continue }
            entityMapping.entityMigrationPolicyClassName = "StrataTests" + name[dot...]
        }
        // CoreStore names its policy with `@objc(...)`, unqualified.
        NSEntityMigrationPolicy.register(Advanced_EvolutionDemo_V2_FromV1MigrationPolicy.self)
        return mapping
    }

    @Test func everyMappingModelLoads() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.mappings.path).filter {
            $0.hasSuffix(".xcmappingmodel")
        }
        #expect(names.count == Self.files.count)
        for name in names {
            let file = String(name.dropLast(".xcmappingmodel".count))
            let mapping = try #require(NSMappingModel(contentsOf: Self.url(file)), "\(file)")
            #expect(mapping.entityMappings.count == Self.files[file]?.entityMappings, "\(file)")
            #expect(mapping.sourceModelPath?.hasSuffix((Self.files[file]?.source ?? "?") + ".xcdatamodel") == true, "\(file)")
        }
        // Expressions written in Xcode's editor, read from their keyed archives.
        let creature = try #require(
            NSMappingModel(contentsOf: Self.url("JohnEstropia__CoreStore__Advanced.EvolutionDemo.V2.FromV1"))?.entityMappings
                .first)
        #expect(creature.entityMigrationPolicyClassName == "Advanced_EvolutionDemo_V2_FromV1MigrationPolicy")
        let flippers = creature.attributeMappings?.first { $0.name == "numberOfFlippers" }?.valueExpression
        #expect(flippers?.expressionFormat == "$source.numberOfFlagella")
        #expect(creature.attributeMappings?.first { $0.name == "hasHead" }?.valueExpression?.constantValue as? Bool == true)
        let employee = try #require(
            NSMappingModel(contentsOf: Self.url("jessesquires__JSQCoreDataKit__Version1_to_Version2"))?.entityMappings.first)
        let founded = employee.attributeMappings?.first { $0.name == "companyDateFounded" }?.valueExpression
        #expect(founded?.function == "now")
        #expect(
            employee.attributeMappings?.first { $0.name == "companyName" }?.valueExpression?.constantValue as? String == "Unknown"
        )
        let car = try #require(NSMappingModel(contentsOf: Self.url("alemar11__CoreDataPlus__V2toV3"))?.entityMappings.first)
        let owners = car.relationshipMappings?.first { $0.name == "previousOwners" }?.valueExpression
        #expect(owners?.function == "destinationInstancesForEntityMappingNamed:sourceInstances:")
        #expect(owners?.arguments?.map(\.expressionFormat) == ["$manager", "\"PersonToPerson\"", "$source.owner"])
        // A file that is not a mapping model.
        #expect(NSMappingModel(contentsOf: TestCorpus.root.appendingPathComponent("LICENSES.tsv")) == nil)
    }

    /// All eleven in one bundle: each pair of models finds its own.
    @Test func mappingModelsAreFoundInABundleByTheirModels() throws {
        let bundle = try #require(Bundle(url: Self.mappings))
        for (file, entry) in Self.files {
            let (source, destination) = try Self.models(file)
            let found = try #require(
                NSMappingModel(from: [bundle], forSourceModel: source, destinationModel: destination), "\(file)")
            #expect(found.sourceModelPath?.hasSuffix(entry.source + ".xcdatamodel") == true, "\(file)")
            #expect(found.destinationModelPath?.hasSuffix(entry.destination + ".xcdatamodel") == true, "\(file)")
        }
        let (v1, _) = try Self.models("jessesquires__JSQCoreDataKit__Version1_to_Version2")
        let (_, v3) = try Self.models("jessesquires__JSQCoreDataKit__Version2_to_Version3")
        #expect(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v3) == nil)
    }

    /// Each mapping model migrates a store of its source model filled with two objects per
    /// entity: every source object of a mapped entity has its destination object, and every
    /// attribute mapped from the source attribute of the same name keeps its values.
    @Test(arguments: files.keys.sorted())
    func mappingModelMigratesAFixture(_ file: String) throws {
        let (sourceModel, destinationModel) = try Self.models(file)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-mapping-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sourceURL = folder.appendingPathComponent("Source.sqlite")
        let sourceValues = try GenericFixture.fill(sourceModel, at: sourceURL, file: file)
        let mapping = try Self.mapping(file)
        let manager = NSMigrationManager(sourceModel: sourceModel, destinationModel: destinationModel)
        let destinationURL = folder.appendingPathComponent("Destination.sqlite")
        try manager.migrateStore(
            from: sourceURL, type: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: destinationURL,
            destinationType: NSSQLiteStoreType, destinationOptions: nil)
        #expect(manager.migrationProgress == 1)

        let (coordinator, context) = try MigrationFixtures.open(destinationModel, destinationURL, options: nil)
        defer { try? MigrationFixtures.close(coordinator) }
        var compared = 0
        try context.performAndWait {
            for entityMapping in mapping.entityMappings where entityMapping.mappingType == .transformEntityMappingType {
                guard let sourceName = entityMapping.sourceEntityName, let destinationName = entityMapping.destinationEntityName
                else { continue }
                let sources = sourceValues[sourceName] ?? []
                #expect(
                    manager.destinationInstances(forEntityMappingName: entityMapping.name, sourceInstances: nil).count
                        == sources.count, "\(file) \(entityMapping.name ?? "")")
                let request = NSFetchRequest<NSManagedObject>(entityName: destinationName)
                request.includesSubentities = false
                let destinations = try context.fetch(request)
                guard destinationName == sourceName else { continue }
                #expect(destinations.count == sources.count, "\(file) \(destinationName)")
                for property in entityMapping.attributeMappings ?? [] {
                    guard let name = property.name, property.valueExpression?.expressionFormat == "$source.\(name)" else {
                        continue
                    }
                    let before = sources.map { GenericFixture.describe($0[name]) }.sorted()
                    let after = destinations.map { GenericFixture.describe($0.value(forKey: name)) }.sorted()
                    #expect(before == after, "\(file) \(destinationName).\(name)")
                    compared += 1
                }
            }
            try MappingModelChecks.check(file, context: context, sourceValues: sourceValues)
        }
        #expect(compared > 0 || file.hasPrefix("yonaskolb"), "\(file): no attribute compared")
    }

    /// wibosco's own store of version 2, migrated to version 3 with the app's mapping model and
    /// policy: the values the app's tests expect.
    @Test func wiboscoStoreMigratesWithItsMappingModel() throws {
        let store = try TestCorpus.copyOfStore(
            named:
                "wibosco__CoreDataMigrationRevised-Example__CoreDataMigration-ExampleTests__Resources__SQLite__CoreDataMigration_Example_2.sqlite"
        )
        defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
        let file = "wibosco__CoreDataMigrationRevised-Example__Migration2to3ModelMapping"
        let (v2, v3) = try Self.models(file)
        let bundleFolder = store.deletingLastPathComponent().appendingPathComponent("App")
        try FileManager.default.createDirectory(at: bundleFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.url(file), to: bundleFolder.appendingPathComponent("Migration2to3ModelMapping.xcmappingmodel"))
        // The app's policy, named with this module (the file names the app's).
        let text = try String(
            contentsOf: bundleFolder.appendingPathComponent("Migration2to3ModelMapping.xcmappingmodel/xcmapping.xml"),
            encoding: .utf8)
        try text.replacingOccurrences(of: "CoreDataMigration_Example.Post2ToPost3", with: "StrataTests.Post2ToPost3").write(
            to: bundleFolder.appendingPathComponent("Migration2to3ModelMapping.xcmappingmodel/xcmapping.xml"), atomically: true,
            encoding: .utf8)
        let bundle = try #require(Bundle(url: bundleFolder))
        _ = v2  // The source model is found beside the destination, as for lightweight migration.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v3)
        // Inference off: only a mapping model can migrate it.
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: store,
            options: [
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false,
                MappingModelBundlesKey: [bundle],
            ])
        defer { try? MigrationFixtures.close(coordinator) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
            request.sortDescriptors = [NSSortDescriptor(key: "postID", ascending: false)]
            let posts = try context.fetch(request)
            #expect(posts.count == 10)
            let first = try #require(posts.first)
            #expect((first.value(forKey: "date") as? Date)?.timeIntervalSince1970 == 1547494150.058821)
            #expect(first.value(forKey: "postID") as? String == "FFFECB21-6645-4FDD-B8B0-B960D0E61F5A")
            #expect(first.value(forKey: "hexColor") as? String == "1BB732")
            let sections = try #require(first.value(forKey: "sections") as? Set<NSManagedObject>)
            #expect(sections.count == 1)
            #expect(sections.first?.value(forKey: "title") as? String == "Test...")
            #expect(sections.first?.value(forKey: "body") as? String == "Test body")
            #expect((sections.first?.value(forKey: "index") as? NSNumber)?.intValue == 0)
            #expect(sections.first?.value(forKey: "post") as? NSManagedObject === first)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Section")) == 10)
        }
        #expect(!FileManager.default.fileExists(atPath: ExplicitStoreMigration.stagingFolder(of: store).path))
    }
}

/// Stores filled with two objects per entity of any model, every attribute given a value
/// of its type (distinct per object, so that uniqueness constraints hold), every to-one
/// relationship pointed at an object of its destination entity.
enum GenericFixture {
    /// Fills a new store at `url` and returns, per entity, each object's attribute values.
    static func fill(_ model: NSManagedObjectModel, at url: URL, file: String) throws -> [String: [[String: Any]]] {
        let (coordinator, context) = try MigrationFixtures.open(model, url, options: nil)
        defer { try? MigrationFixtures.close(coordinator) }
        var values: [String: [[String: Any]]] = [:]
        try context.performAndWait {
            var objects: [String: [NSManagedObject]] = [:]
            for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) where !entity.isAbstract {
                let name = entity.name ?? ""
                for index in 0..<2 {
                    let object = NSEntityDescription.insertNewObject(forEntityName: name, into: context)
                    var row: [String: Any] = [:]
                    for (key, attribute) in entity.attributesByName where !attribute.isTransient {
                        guard let value = value(for: attribute, entity: name, key: key, index: index, file: file) else {
                            continue
                        }
                        object.setValue(value, forKey: key)
                        row[key] = value
                    }
                    objects[name, default: []].append(object)
                    values[name, default: []].append(row)
                }
            }
            for (name, list) in objects {
                guard let entity = model.entitiesByName[name] else { continue }
                for (index, object) in list.enumerated() {
                    for (key, relationship) in entity.relationshipsByName where !relationship.isToMany {
                        guard let target = relationship.destinationEntity?.name, let candidates = objects[target] else {
                            continue
                        }
                        object.setValue(candidates[index % candidates.count], forKey: key)
                    }
                }
            }
            try context.save()
        }
        return values
    }

    private static func value(
        for attribute: NSAttributeDescription, entity: String, key: String, index: Int, file: String
    ) -> Any? {
        // CoreDataPlus's policy makes one Maker per maker name: two cars share one.
        if file.hasPrefix("alemar11"), key == "maker" { return index == 0 ? "Acme" : "Zenith" }
        // Moody 5's countries name their continent by code; 6 makes one Continent per code.
        if key == "isoContinent" { return Int16(150) }
        let number = Int64(entity.utf8.count * 10 + index + 1)
        switch attribute.attributeType {
        case .stringAttributeType: return "\(entity)-\(key)-\(index)"
        case .integer16AttributeType: return Int16(number)
        case .integer32AttributeType: return Int32(number)
        case .integer64AttributeType: return number
        case .doubleAttributeType: return Double(number) + 0.5
        case .floatAttributeType: return Float(number) + 0.25
        case .decimalAttributeType: return Decimal(number)
        case .booleanAttributeType: return index == 0
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: Double(number) * 1000)
        case .binaryDataAttributeType: return Data("\(entity)\(index)".utf8)
        case .UUIDAttributeType: return UUID()
        case .URIAttributeType: return URL(string: "https://example.com/\(entity)/\(index)")
        default: return nil
        }
    }

    /// A value in words, to compare collections of values whatever their Swift types.
    static func describe(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let number as NSNumber: return number.stringValue
        case let date as Date: return "\(date.timeIntervalSinceReferenceDate)"
        case let other?: return "\(other)"
        }
    }
}

/// What each app's mapping model and policy do beyond copying values.
enum MappingModelChecks {
    static func check(_ file: String, context: NSManagedObjectContext, sourceValues: [String: [[String: Any]]]) throws {
        func fetch(_ entity: String) throws -> [NSManagedObject] {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
        }
        switch file {
        case "wibosco__CoreDataMigrationRevised-Example__Migration2to3ModelMapping":
            // One section per post, made from the post's content by the policy.
            for post in try fetch("Post") {
                let sections = post.value(forKey: "sections") as? Set<NSManagedObject> ?? []
                #expect(sections.count == 1)
                let body = sections.first?.value(forKey: "body") as? String
                #expect(body?.hasPrefix("Post-content-") == true)
                #expect(sections.first?.value(forKey: "title") as? String == "Post...")
            }
        case "alemar11__CoreDataPlus__V2toV3":
            // Cars of every kind keep their owners; one Maker per maker name (two names).
            let makers = try fetch("Maker")
            #expect(makers.compactMap { $0.value(forKey: "name") as? String }.sorted() == ["Acme", "Zenith"])
            let cars = try fetch("Car")
            #expect(cars.count == 6)
            #expect(cars.allSatisfy { $0.value(forKey: "createdBy") != nil })
            #expect(cars.allSatisfy { $0.value(forKey: "owner") != nil })
            #expect(cars.allSatisfy { ($0.value(forKey: "previousOwners") as? Set<NSManagedObject>)?.count == 1 })
        case "objcio__core-data__Moody_5-Moody_6":
            // The policy makes one continent for the code both countries name.
            let continents = try fetch("Continent")
            #expect(continents.count == 1)
            #expect((continents.first?.value(forKey: "countries") as? Set<NSManagedObject>)?.count == 2)
        case "objcio__core-data__Moody_4-Moody_5":
            // isoContinent is read through the country's continent (`$source.continent.numericISO3166Code`).
            for country in try fetch("Country") {
                #expect((country.value(forKey: "isoContinent") as? NSNumber) != nil)
            }
        case "objcio__core-data__Moody_2-Moody_3":
            // Each mood's continent is its country's, through the key path Xcode recorded.
            for mood in try fetch("Mood") {
                let country = mood.value(forKey: "country") as? NSManagedObject
                #expect(
                    mood.value(forKey: "continent") as? NSManagedObject === country?.value(forKey: "continent")
                        as? NSManagedObject)
            }
        case "jessesquires__JSQCoreDataKit__Version1_to_Version2":
            for employee in try fetch("Employee") {
                #expect(employee.value(forKey: "companyName") as? String == "Unknown")
                #expect((employee.value(forKey: "companyProfits") as? NSNumber)?.intValue == 0)
                let founded = employee.value(forKey: "companyDateFounded") as? Date
                #expect(founded.map { abs($0.timeIntervalSinceNow) < 600 } == true)
            }
        case "jessesquires__JSQCoreDataKit__Version2_to_Version3":
            // EmployeeToCompany makes a company of each employee's company fields.
            let names = try fetch("Company").compactMap { $0.value(forKey: "name") as? String }.sorted()
            #expect(names == (sourceValues["Employee"] ?? []).compactMap { $0["companyName"] as? String }.sorted())
        case "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V2.FromV1":
            for creature in try fetch("Creature") {
                #expect(creature.value(forKey: "hasHead") as? Bool == true)
                #expect(creature.value(forKey: "hasVertebrae") != nil)
                #expect(creature.value(forKey: "hasTail") != nil)
            }
        default:
            break
        }
    }
}

// MARK: The apps' policies, as the apps write them

/// wibosco: each post's content becomes its first section.
final class Post2ToPost3MigrationPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(
        forSource sourceInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try super.createDestinationInstances(forSource: sourceInstance, in: mapping, manager: manager)
        guard
            let post = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sourceInstance]).first,
            let context = post.managedObjectContext
        else { throw NSError(domain: "Post2ToPost3MigrationPolicy", code: 1) }
        let body = sourceInstance.value(forKey: "content") as? String
        let section = NSEntityDescription.insertNewObject(forEntityName: "Section", into: context)
        section.setValue(body.map { String($0.prefix(4)) + "..." }, forKey: "title")
        section.setValue(body, forKey: "body")
        section.setValue(post, forKey: "post")
        section.setValue(0, forKey: "index")
        post.setValue(Set([section]), forKey: "sections")
    }
}

/// CoreDataPlus: a Maker per distinct maker name, found among the objects already made.
final class V2to3MakerPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let makerName = sInstance.value(forKey: "maker") as? String else { return }
        guard let car = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first,
            let context = car.managedObjectContext
        else { throw NSError(domain: "V2to3MakerPolicy", code: 1) }
        let maker =
            context.registeredObjects.first {
                $0.entity.name == "Maker" && ($0.value(forKey: "name") as? String) == makerName
            }
            ?? {
                let made = NSEntityDescription.insertNewObject(forEntityName: "Maker", into: context)
                made.setValue(makerName, forKey: "name")
                return made
            }()
        var cars = maker.value(forKey: "cars") as? Set<NSManagedObject> ?? []
        cars.insert(car)
        maker.setValue(cars, forKey: "cars")
    }
}

/// Moody: a Continent per ISO code, found among the objects already made.
final class Country5ToCountry6Policy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let code = sInstance.value(forKey: "isoContinent") as? NSNumber else { return }
        guard let country = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first,
            let context = country.managedObjectContext
        else { throw NSError(domain: "Country5ToCountry6Policy", code: 1) }
        let continent =
            context.registeredObjects.first {
                $0.entity.name == "Continent" && ($0.value(forKey: "numericISO3166Code") as? NSNumber) == code
            }
            ?? {
                let made = NSEntityDescription.insertNewObject(forEntityName: "Continent", into: context)
                made.setValue(code, forKey: "numericISO3166Code")
                return made
            }()
        country.setValue(continent, forKey: "continent")
    }
}

/// CoreStore: the new attributes get values of the policy's choosing.
final class Advanced_EvolutionDemo_V2_FromV1MigrationPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        for creature in manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]) {
            creature.setValue(Bool.random(), forKey: "hasVertebrae")
            creature.setValue(Bool.random(), forKey: "hasTail")
        }
    }
}
