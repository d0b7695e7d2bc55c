import Foundation
import GRDB
import Testing

@testable import Strata

// MARK: - Values and transformers of the kind apps register
//
// Names are chosen not to collide with the classes of other suites in the same process.

/// A colour an app stores through its own transformer, as three bytes.
final class TransformableSwatch: NSObject {
    let red, green, blue: UInt8

    init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        (self.red, self.green, self.blue) = (red, green, blue)
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? TransformableSwatch else { return false }
        return (red, green, blue) == (other.red, other.green, other.blue)
    }

    override var hash: Int { Int(red) << 16 | Int(green) << 8 | Int(blue) }
}

/// A `ValueTransformer` subclass: swatch ⇄ three bytes.
final class TransformableSwatchTransformer: ValueTransformer, @unchecked Sendable {
    static let name = NSValueTransformerName("StrataTestsSwatchTransformer")

    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let swatch = value as? TransformableSwatch else { return nil }
        return Data([swatch.red, swatch.green, swatch.blue])
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, data.count == 3 else { return nil }
        return TransformableSwatch(data[data.startIndex], data[data.startIndex + 1], data[data.startIndex + 2])
    }
}

/// A class archived with secure coding.
final class TransformableBadge: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let title: String

    init(title: String) { self.title = title }

    func encode(with coder: NSCoder) { coder.encode(title, forKey: "title") }

    required init?(coder: NSCoder) {
        guard let title = coder.decodeObject(of: [NSString.self], forKey: "title") as? String else { return nil }
        self.title = title
    }

    override func isEqual(_ object: Any?) -> Bool { (object as? TransformableBadge)?.title == title }
    override var hash: Int { title.hashValue }
}

/// Apple's pattern for custom classes: a secure-unarchiving transformer that allows them.
final class TransformableBadgeTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {
    static let name = NSValueTransformerName("StrataTestsBadgeTransformer")
    override class var allowedTopLevelClasses: [AnyClass] { [TransformableBadge.self] }
}

/// Transformable attributes: registered transformers, Xcode's class-name spelling of the
/// secure-unarchiving transformer, keyed archiving without a transformer name, values that
/// cannot be transformed, across the SQLite, binary and in-memory stores.
@Suite struct TransformableTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()

    static let registration: Void = {
        ValueTransformer.setValueTransformer(TransformableSwatchTransformer(), forName: TransformableSwatchTransformer.name)
        ValueTransformer.setValueTransformer(TransformableBadgeTransformer(), forName: TransformableBadgeTransformer.name)
    }()

    static func model() -> NSManagedObjectModel {
        _ = registration
        func transformable(_ name: String, _ transformer: String?) -> Attribute {
            Attribute(name, .transformableAttributeType) { $0.valueTransformerName = transformer }
        }
        return NSManagedObjectModel {
            Entity("Palette") {
                Attribute("name", .stringAttributeType)
                transformable("swatch", TransformableSwatchTransformer.name.rawValue)
                transformable("badge", TransformableBadgeTransformer.name.rawValue)
                // Xcode writes the class name; Apple registers "NSSecureUnarchiveFromData".
                transformable("keywords", "NSSecureUnarchiveFromDataTransformer")
                transformable("settings", NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue)
                transformable("extra", nil)
                transformable("mystery", "StrataTestsUnregisteredTransformer")
            }
        }
    }

    private let model = Self.model()

    static let storeTypes = [NSSQLiteStoreType, NSBinaryStoreType, NSInMemoryStoreType]

    private func url(_ type: String) -> URL? {
        type == NSInMemoryStoreType ? nil : scratch.file(type == NSSQLiteStoreType ? "palette.sqlite" : "palette.store")
    }

    // MARK: Round trips

    @Test(arguments: storeTypes)
    func valuesRoundTripThroughSaveAndReopen(type: String) throws {
        var stack = try ObjectGraphTests.Stack(model, type: type, at: url(type))
        let context = stack.newContext()
        try context.performAndWait {
            let palette = NSEntityDescription.insertNewObject(forEntityName: "Palette", into: context)
            palette.setValue("spring", forKey: "name")
            palette.setValue(TransformableSwatch(10, 200, 30), forKey: "swatch")
            palette.setValue(TransformableBadge(title: "gold"), forKey: "badge")
            palette.setValue(["tulip", "crocus"], forKey: "keywords")
            palette.setValue(["volume": 7, "theme": "dark"] as [String: Any], forKey: "settings")
            palette.setValue(URL(string: "https://example.org/spring"), forKey: "extra")
            try context.save()
        }
        if type != NSInMemoryStoreType {
            try stack.close()
            stack = try ObjectGraphTests.Stack(model, type: type, at: url(type))
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let palette = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Palette")).first)
            #expect(palette.value(forKey: "swatch") as? TransformableSwatch == TransformableSwatch(10, 200, 30))
            #expect(palette.value(forKey: "badge") as? TransformableBadge == TransformableBadge(title: "gold"))
            #expect(palette.value(forKey: "keywords") as? [String] == ["tulip", "crocus"])
            let settings = try #require(palette.value(forKey: "settings") as? [String: Any])
            #expect(settings["volume"] as? Int == 7 && settings["theme"] as? String == "dark")
            #expect(palette.value(forKey: "extra") as? URL == URL(string: "https://example.org/spring"))
        }
    }

    @Test func sqliteStoresTheTransformersOutput() throws {
        let storeURL = try #require(url(NSSQLiteStoreType))
        let stack = try ObjectGraphTests.Stack(model, at: storeURL)
        let context = stack.newContext()
        let id = try context.performAndWait {
            let palette = NSEntityDescription.insertNewObject(forEntityName: "Palette", into: context)
            palette.setValue(TransformableSwatch(1, 2, 3), forKey: "swatch")
            palette.setValue(["a", "b"], forKey: "keywords")
            palette.setValue(["x"], forKey: "extra")
            try context.save()
            return palette.objectID
        }
        func column(_ name: String) throws -> Data? {
            try ExternalStorageFiles.column(name, of: id, at: storeURL, table: "ZPALETTE")
        }
        #expect(try column("ZSWATCH") == Data([1, 2, 3]))
        for name in ["ZKEYWORDS", "ZEXTRA"] {
            let archive = try #require(try column(name))
            #expect(archive.starts(with: Data("bplist00".utf8)), "\(name) is a keyed archive")
            let object = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(archive)
            #expect((object as? NSArray)?.count ?? 0 > 0)
        }
    }

    @Test func transformersAreFoundByTheirNamesAndXcodesClassName() throws {
        _ = Self.registration
        for name in ["NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer", "NSKeyedUnarchiveFromData"] {
            #expect(ValueTransformer(forName: NSValueTransformerName(name)) != nil, "\(name)")
        }
        #expect(ValueTransformer(forName: NSValueTransformerName("NoSuchTransformer")) == nil)
        #expect(ValueTransformer.valueTransformerNames().contains(TransformableSwatchTransformer.name))

        // The secure transformer reads and writes its allowed classes only, as Apple's does:
        // forward unarchives (data to value), reverse archives.
        let secure = try #require(ValueTransformer(forName: .secureUnarchiveFromDataTransformerName))
        let data = try #require(secure.reverseTransformedValue(["one", "two"]) as? Data)
        #expect(secure.transformedValue(data) as? [String] == ["one", "two"])
        #expect(secure.transformedValue(["one", "two"]) == nil)
        #expect(secure.reverseTransformedValue(TransformableBadge(title: "not allowed")) == nil)
        let badge = try NSKeyedArchiver.archivedData(withRootObject: TransformableBadge(title: "b"), requiringSecureCoding: true)
        #expect(secure.transformedValue(badge) == nil)
        #expect(
            TransformableBadgeTransformer().transformedValue(badge) as? TransformableBadge == TransformableBadge(title: "b"))
    }

    // MARK: Values that cannot be transformed

    /// A value the attribute's transformer cannot turn into data fails the save with a
    /// validation error naming the attribute; nothing of the save is written.
    @Test(arguments: [NSSQLiteStoreType, NSBinaryStoreType])
    func aValueThatCannotBeTransformedFailsTheSave(type: String) throws {
        struct NotCodable {}
        let cases: [(key: String, value: Any, reason: String)] = [
            ("swatch", "not a swatch", "returned nil"),
            ("extra", NotCodable(), "does not conform to NSCoding"),
            ("keywords", TransformableBadge(title: "not allowed"), "returned nil"),
            ("mystery", "anything", "no value transformer named"),
        ]
        let stack = try ObjectGraphTests.Stack(model, type: type, at: url(type))
        for (key, value, reason) in cases {
            let context = stack.newContext()
            try context.performAndWait {
                let palette = NSEntityDescription.insertNewObject(forEntityName: "Palette", into: context)
                palette.setValue("failing", forKey: "name")
                palette.setValue(value, forKey: key)
                let error = try #require(throws: (any Error).self) { try context.save() } as NSError
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == NSManagedObjectValidationError)
                #expect(error.userInfo[NSValidationKeyErrorKey] as? String == key)
                #expect(error.localizedDescription.contains("Palette.\(key)"), "\(error.localizedDescription)")
                #expect(error.localizedDescription.contains(reason), "\(error.localizedDescription)")
            }
        }
        try stack.close()
        let reopened = try ObjectGraphTests.Stack(model, type: type, at: url(type))
        let reader = reopened.newContext()
        #expect(try reader.performAndWait { try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Palette")) } == 0)
    }
}
