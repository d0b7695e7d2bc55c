import Foundation

@testable import Strata

/// Model XML written for the tests, covering every element and attribute of the grammar.
enum XcodeModelFixtures {
    /// A model using every feature of the file format once. Line numbers matter: tests
    /// point at lines of this text.
    static let everything = #"""
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" usedWithCloudKit="YES" userDefinedModelVersionIdentifier="v3">
            <entity name="Author" representedClassName="Author" parentEntity="Person" syncable="YES">
                <attribute name="penName" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            </entity>
            <entity name="Book" representedClassName="Book" elementID="OldBook" versionHashModifier="2" syncable="YES" codeGenerationType="class" futureFlag="kept">
                <attribute name="cover" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" preserveAfterDeletion="YES" allowsCloudEncryption="YES" storedInTruthFile="YES"/>
                <attribute name="createdAt" attributeType="Date" defaultDateTimeInterval="631152000" usesScalarValueType="NO"/>
                <attribute name="isbn" attributeType="String" minValueString="10" maxValueString="13" regularExpressionString="^[0-9X]+$" spotlightIndexingEnabled="YES"/>
                <attribute name="location" optional="YES" attributeType="Composite" composite="Point"/>
                <attribute name="pages" optional="YES" attributeType="Integer 32" defaultValueString="0.0" usesScalarValueType="YES" indexed="YES"/>
                <attribute name="scratch" optional="YES" transient="YES"/>
                <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
                <attribute name="title" attributeType="String" defaultValueString="Untitled &quot;1&quot; &amp; &lt;more&gt;" elementID="name" versionHashModifier="3"/>
                <attribute name="titleKey" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(title)"/>
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
                <relationship name="chapters" toMany="YES" minCount="1" maxCount="50" deletionRule="Cascade" ordered="YES" destinationEntity="Chapter" inverseName="book" inverseEntity="Chapter">
                    <userInfo>
                        <entry key="note" value="line one&#10;line two"/>
                    </userInfo>
                </relationship>
                <fetchedProperty name="longChapters" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Chapter" predicateString="book == $FETCH_SOURCE AND pages &gt; 30"/>
                </fetchedProperty>
                <fetchIndex name="byTitle">
                    <fetchIndexElement property="title" type="Binary" order="descending"/>
                    <fetchIndexElement property="pages" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byPages">
                    <fetchIndexElement expression="pages" expressionType="Integer 32" type="RTree" order="ascending"/>
                </fetchIndex>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="title"/>
                        <index value="isbn"/>
                    </compoundIndex>
                </compoundIndexes>
                <userInfo>
                    <entry key="color" value="blue"/>
                </userInfo>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="isbn"/>
                    </uniquenessConstraint>
                    <uniquenessConstraint>
                        <constraint value="title"/>
                        <constraint value="createdAt"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Chapter" syncable="YES">
                <attribute name="pages" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                <relationship name="book" maxCount="1" deletionRule="No Action" destinationEntity="Book" inverseName="chapters" inverseEntity="Book"/>
            </entity>
            <entity name="Person" representedClassName="NSManagedObject" isAbstract="YES" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <userInfo/>
            </entity>
            <fetchRequest name="booksByTitle" entity="Book" predicateString="title == $TITLE" fetchLimit="10" fetchBatchSize="20" resultType="2"/>
            <fetchRequest name="distinctBooks" entity="Book" includeSubentities="YES" includePropertyValues="YES" includesPendingChanges="YES" returnObjectsAsFaults="YES" returnDistinctResults="YES"/>
            <configuration name="Cloud" usedWithCloudKit="YES">
                <memberEntity name="Book"/>
                <memberEntity name="Chapter"/>
            </configuration>
            <configuration name="Local">
                <memberEntity name="Author"/>
            </configuration>
            <composite name="Point">
                <attribute name="x" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="y" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="label" optional="YES" attributeType="Composite" composite="Label"/>
            </composite>
            <composite name="Label">
                <attribute name="text" optional="YES" attributeType="String"/>
            </composite>
            <elements>
                <element name="Book" positionX="-63" positionY="-18" width="128" height="89"/>
                <element name="Chapter" positionX="160" positionY="192" width="128" height="44"/>
            </elements>
        </model>
        """#

    /// The smallest valid model: one entity with one attribute.
    static func single(
        entity: String = #"<entity name="Item">"#,
        attribute: String = #"<attribute name="title" optional="YES" attributeType="String"/>"#
    ) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
            \(entity)
                \(attribute)
            </entity>
        </model>
        """
    }

    static func load(_ text: String, file: URL? = nil) throws(ModelError) -> NSManagedObjectModel {
        try NSManagedObjectModel.load(xml: Data(text.utf8), file: file)
    }

    /// The error loading `text` throws, or `nil` when it loads.
    static func error(loading text: String, file: URL? = nil) -> ModelError? {
        do {
            _ = try load(text, file: file)
            return nil
        } catch {
            return error
        }
    }

    /// A new empty temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
