import Foundation
import GRDB
import Testing

@testable import Strata

/// Attribute values through save and reopen in each store type: decimals with many digits
/// and negative ones (numeric in SQLite's `DECIMAL` column), UUIDs (16-byte blobs), URIs
/// (their absolute string), and the model's default values of every attribute type.
@Suite struct AttributeTypeRoundTripTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()
    private let model = Self.model()

    static let storeTypes = [NSSQLiteStoreType, NSBinaryStoreType, NSInMemoryStoreType]

    static var defaults: [String: (NSAttributeType, Any)] {
        [
            "int16": (.integer16AttributeType, Int16(-16)),
            "int32": (.integer32AttributeType, Int32(32)),
            "int64": (.integer64AttributeType, Int64.max),
            "decimal": (.decimalAttributeType, Decimal(string: "-12.345")!),
            "double": (.doubleAttributeType, 1.25),
            "float": (.floatAttributeType, Float(2.5)),
            "string": (.stringAttributeType, "plain"),
            "bool": (.booleanAttributeType, true),
            "date": (.dateAttributeType, Date(timeIntervalSinceReferenceDate: 737_057_646.5)),
            "binary": (.binaryDataAttributeType, Data([1, 2, 3])),
            "uuid": (.UUIDAttributeType, UUID(uuidString: "30084A1C-76CF-4976-8312-8E8EFCF6F510")!),
            "uri": (.URIAttributeType, URL(string: "https://example.org/default?q=1#top")!),
            "transformable": (.transformableAttributeType, ["default", "tags"]),
        ]
    }

    /// `Sample` has one attribute of each type with a default value; `Value` plain ones.
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Sample") {
                for (name, (type, value)) in defaults.sorted(by: { $0.key < $1.key }) {
                    Attribute(name, type, defaultValue: value)
                }
            }
            Entity("Value") {
                Attribute("label", .stringAttributeType)
                Attribute("decimal", .decimalAttributeType)
                Attribute("uuid", .UUIDAttributeType)
                Attribute("uri", .URIAttributeType)
            }
        }
    }

    /// Decimals a SQLite column keeps exactly: up to 15 significant digits at any scale, and
    /// whole numbers up to 19 digits (stored as integers).
    static let decimals = [
        "0", "-1", "1234.56", "-1234.56", "0.1", "-0.000000000000001", "123456789012345", "1234567890.12345",
        "-99999999999999.9", "3.14159265358979", "9223372036854775807", "-9223372036854775808", "123456789012345678",
        "1e-7", "1.5e30", "-2.5e-30",
    ].map { Decimal(string: $0)! }

    /// Decimals with more digits than a SQLite number holds: exact in the binary and
    /// in-memory stores.
    static let longDecimals = ["12345678901234567890.123456789", "-0.12345678901234567890123456789"].map { Decimal(string: $0)! }

    static let uris = [
        "https://example.org/a%20b?q=1&r=%C3%A9#frag", "file:///tmp/some%20file.txt", "mailto:someone@example.org",
        "x-coredata://30084A1C-76CF-4976-8312-8E8EFCF6F510/Value/p1", "relative/path",
    ].map { URL(string: $0)! }

    private func url(_ type: String) -> URL? {
        type == NSInMemoryStoreType ? nil : scratch.file(type == NSSQLiteStoreType ? "values.sqlite" : "values.store")
    }

    /// Saves objects made by `make` in a new store, reopens it (a new context for the
    /// in-memory store) and returns the objects of the entity read back, by label.
    private func roundTrip(
        _ type: String, entity: String, _ make: (NSManagedObjectContext) -> Void,
        check: ([NSManagedObject]) throws -> Void
    ) throws {
        var stack = try ObjectGraphTests.Stack(model, type: type, at: url(type))
        let context = stack.newContext()
        try context.performAndWait {
            make(context)
            try context.save()
        }
        if type != NSInMemoryStoreType {
            try stack.close()
            stack = try ObjectGraphTests.Stack(model, type: type, at: url(type))
        }
        let reader = stack.newContext()
        try reader.performAndWait { try check(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))) }
    }

    // MARK: Defaults

    @Test(arguments: storeTypes)
    func defaultValuesOfEveryTypeApplyToNewObjects(type: String) throws {
        func checkDefaults(_ sample: NSManagedObject, _ phase: String) {
            for (name, (_, expected)) in Self.defaults {
                let value = sample.value(forKey: name)
                #expect(Self.same(value, expected), "\(phase) \(name): \(String(describing: value)) ≠ \(expected)")
            }
        }
        try roundTrip(type, entity: "Sample") { context in
            let sample = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
            checkDefaults(sample, "new")
        } check: { samples in
            #expect(samples.count == 1)
            if let sample = samples.first { checkDefaults(sample, "saved") }
        }
    }

    private static func same(_ value: Any?, _ expected: Any) -> Bool {
        switch expected {
        case let strings as [String]: value as? [String] == strings
        default: (value as? NSObject)?.isEqual(expected as? NSObject) ?? false
        }
    }

    // MARK: Decimal, UUID, URI

    @Test(arguments: storeTypes)
    func decimalsRoundTripExactly(type: String) throws {
        let values = Self.decimals + (type == NSSQLiteStoreType ? [] : Self.longDecimals)
        try roundTrip(type, entity: "Value") { context in
            for (index, decimal) in values.enumerated() {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Value", into: context)
                object.setValue("\(index)", forKey: "label")
                object.setValue(decimal, forKey: "decimal")
            }
        } check: { objects in
            let read = Dictionary(uniqueKeysWithValues: objects.map { ($0.value(forKey: "label") as? String ?? "", $0) })
            for (index, decimal) in values.enumerated() {
                let value = read["\(index)"]?.value(forKey: "decimal") as? Decimal
                #expect(value == decimal, "\(decimal) read back as \(String(describing: value))")
            }
        }
    }

    @Test func sqliteStoresDecimalsAsNumbers() throws {
        let storeURL = try #require(url(NSSQLiteStoreType))
        let stack = try ObjectGraphTests.Stack(model, at: storeURL)
        let context = stack.newContext()
        try context.performAndWait {
            for decimal in Self.decimals + Self.longDecimals {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Value", into: context)
                object.setValue(decimal, forKey: "decimal")
            }
            try context.save()
        }
        let types = try DatabaseQueue(path: storeURL.path).read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT typeof(ZDECIMAL) FROM ZVALUE ORDER BY 1")
        }
        #expect(types == ["integer", "real"])
    }

    @Test(arguments: storeTypes)
    func uuidsAndURIsRoundTripExactly(type: String) throws {
        let uuids = (0..<Self.uris.count).map { _ in UUID() }
        try roundTrip(type, entity: "Value") { context in
            for (index, uri) in Self.uris.enumerated() {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Value", into: context)
                object.setValue("\(index)", forKey: "label")
                object.setValue(uuids[index], forKey: "uuid")
                object.setValue(uri, forKey: "uri")
            }
        } check: { objects in
            let read = Dictionary(uniqueKeysWithValues: objects.map { ($0.value(forKey: "label") as? String ?? "", $0) })
            for (index, uri) in Self.uris.enumerated() {
                #expect(read["\(index)"]?.value(forKey: "uuid") as? UUID == uuids[index])
                let value = read["\(index)"]?.value(forKey: "uri") as? URL
                #expect(value?.absoluteString == uri.absoluteString, "\(uri) read back as \(String(describing: value))")
            }
        }
        guard type == NSSQLiteStoreType, let storeURL = url(type) else { return }
        let rows = try DatabaseQueue(path: storeURL.path).read { db in
            try Row.fetchAll(db, sql: "SELECT ZLABEL, ZUUID, ZURI FROM ZVALUE")
        }
        for row in rows {
            let index = Int(row["ZLABEL"] as String? ?? "") ?? -1
            let blob: Data? = row["ZUUID"]
            #expect(blob == withUnsafeBytes(of: uuids[index].uuid) { Data($0) }, "UUIDs are 16-byte blobs")
            #expect(row["ZURI"] as String? == Self.uris[index].absoluteString, "URIs are their absolute string")
        }
    }

    // MARK: Binding

    /// Each plain type is bound in place from the object's values; the same values given as
    /// `NSNumber`s and `NSString`s go through the codec. Both store the same columns (integers,
    /// reals, text), and text keeps every character: NUL, empty, and beyond ASCII.
    @Test func plainValuesAndTheirFoundationFormsStoreTheSameColumns() throws {
        let texts = ["a\u{0}b", "", "Ünïcödé ✓", String(repeating: "long ", count: 40)]
        try roundTrip(NSSQLiteStoreType, entity: "Sample") { context in
            for (index, text) in texts.enumerated() {
                let plain = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
                let bridged = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
                plain.setValue(Int16(index), forKey: "int16")
                bridged.setValue(NSNumber(value: index), forKey: "int16")
                plain.setValue(Int32(-7), forKey: "int32")
                bridged.setValue(NSNumber(value: -7), forKey: "int32")
                plain.setValue(Int64.min, forKey: "int64")
                bridged.setValue(NSNumber(value: Int64.min), forKey: "int64")
                plain.setValue(0.1, forKey: "double")
                bridged.setValue(NSNumber(value: 0.1), forKey: "double")
                plain.setValue(Float(-0.5), forKey: "float")
                bridged.setValue(NSNumber(value: Float(-0.5)), forKey: "float")
                plain.setValue(false, forKey: "bool")
                bridged.setValue(NSNumber(value: false), forKey: "bool")
                plain.setValue(Date(timeIntervalSinceReferenceDate: -1.5), forKey: "date")
                bridged.setValue(NSDate(timeIntervalSinceReferenceDate: -1.5), forKey: "date")
                plain.setValue(text, forKey: "string")
                bridged.setValue(NSString(string: text), forKey: "string")
            }
        } check: { objects in
            #expect(objects.count == texts.count * 2)
            for object in objects {
                let index = Int(object.value(forKey: "int16") as? Int16 ?? -1)
                #expect(texts.indices.contains(index))
                guard texts.indices.contains(index) else { continue }
                #expect(object.value(forKey: "string") as? String == texts[index])
                #expect(object.value(forKey: "int64") as? Int64 == Int64.min)
                #expect(object.value(forKey: "date") as? Date == Date(timeIntervalSinceReferenceDate: -1.5))
            }
        }
        let storeURL = try #require(url(NSSQLiteStoreType))
        let rows = try DatabaseQueue(path: storeURL.path).read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT ZINT16, typeof(ZINT16) AS i, typeof(ZINT32) AS i32, typeof(ZINT64) AS i64, typeof(ZBOOL) AS b,
                    typeof(ZDOUBLE) AS d, typeof(ZFLOAT) AS f, typeof(ZDATE) AS t, typeof(ZSTRING) AS s, ZDATE,
                    ZFLOAT, CAST(ZSTRING AS BLOB) AS bytes FROM ZSAMPLE ORDER BY Z_PK
                    """)
        }
        #expect(rows.count == texts.count * 2)
        for row in rows {
            let index: Int = row["ZINT16"]
            #expect(
                [row["i"], row["i32"], row["i64"], row["b"]] as [String] == ["integer", "integer", "integer", "integer"])
            #expect([row["d"], row["f"], row["t"], row["s"]] as [String] == ["real", "real", "real", "text"])
            // Read as bytes: GRDB reads text as a C string, which would end at the NUL.
            let bytes: Data? = row["bytes"]
            #expect((bytes ?? Data()) == Data(texts[index].utf8), "every byte of \(texts[index].debugDescription)")
            #expect(row["ZDATE"] as Double == -1.5)
            #expect(row["ZFLOAT"] as Double == -0.5)
        }
    }
}
