import Foundation

@testable import Strata

extension FuzzTarget {
    /// The bytes as a mapping model: a compiled `.cdm` when they start as a binary property
    /// list, else an `.xcmappingmodel`'s `xcmapping.xml`. Reading gives a mapping model or
    /// Core Data's error. A mapping model that reads then migrates a small store of the source
    /// model: the migration succeeds or fails with Core Data's error, never changes the source
    /// store, and leaves no destination store when it fails.
    public static let mappingModel = FuzzTarget(name: "mapping-model") { data throws(FuzzFinding) in
        let mapping: NSMappingModel
        do {
            mapping =
                CompiledMappingModelFile.isCompiled(data)
                ? try CompiledMappingModelFile.parse(data, file: nil) : try MappingModelFile.parse(data, file: nil)
        } catch {
            try FuzzCheck.requireCocoaError(error, "reading a mapping model")
            return .refused
        }
        return try MappingModelFuzzing.migrate(with: mapping)
    }
}

enum MappingModelFuzzing {
    /// Items renamed and retyped, notes copied, a relationship between them: what the seeds map.
    static let sourceModelXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" attributeType="String" defaultValueString=""/>
                <attribute name="count" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="item" inverseEntity="Note"/>
            </entity>
            <entity name="Note" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="text" optional="YES" attributeType="String"/>
                <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="notes" inverseEntity="Item"/>
            </entity>
        </model>
        """

    static let destinationModelXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="title" attributeType="String" defaultValueString=""/>
                <attribute name="count" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="item" inverseEntity="Note"/>
            </entity>
            <entity name="Note" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="text" optional="YES" attributeType="String"/>
                <attribute name="pinned" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="notes" inverseEntity="Item"/>
            </entity>
        </model>
        """

    static let sourceModel = FuzzFixtures.loadModel(sourceModelXML)
    static let destinationModel = FuzzFixtures.loadModel(destinationModelXML)

    static let sourceStore: Result<URL, FuzzFinding> = Result { () throws(FuzzFinding) in
        try FuzzFixtures.makeStore("MappingSource.sqlite", model: try sourceModel.get()) { context in
            for index in 1...3 {
                let item = try FuzzFixtures.insert("Item", ["name": "item \(index)", "count": Int16(index)], into: context)
                let note = try FuzzFixtures.insert("Note", ["text": "note \(index)"], into: context)
                note.setValue(item, forKey: "item")
            }
        }
    }

    static func migrate(with mapping: NSMappingModel) throws(FuzzFinding) -> FuzzOutcome {
        let scratch = try FuzzScratch()
        let source = scratch.url("Source.sqlite")
        let destination = scratch.url("Destination.sqlite")
        try FuzzFixtures.copyStore(try sourceStore.get(), to: source)
        let original = FileManager.default.bytes(of: source)
        let manager = NSMigrationManager(sourceModel: try sourceModel.get(), destinationModel: try destinationModel.get())
        do {
            try manager.migrateStore(
                from: source, type: NSSQLiteStoreType, with: mapping, toDestinationURL: destination,
                destinationType: NSSQLiteStoreType)
        } catch {
            try FuzzCheck.requireCocoaError(error, "migrateStore")
            try FuzzCheck.require(
                !FileManager.default.fileExists(atPath: destination.path), "a failed migration left its destination store")
            try FuzzCheck.requireUnchanged(source, original, "the source store of a migration")
            return .refused
        }
        try FuzzCheck.requireUnchanged(source, original, "the source store of a migration")
        return .taken
    }
}
