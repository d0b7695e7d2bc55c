import Foundation
import Testing

@testable import Strata

@Suite("Xcode model reader errors") struct XcodeModelReaderErrorTests {
    private let file = URL(fileURLWithPath: "/models/Test.xcdatamodel/contents")

    @Test func truncatedXMLIsMalformedAndNamesTheFile() throws {
        let text = XcodeModelFixtures.everything
        let truncated = String(text.prefix(text.count / 2))
        let error = try #require(XcodeModelFixtures.error(loading: truncated, file: file))
        guard case .malformedXML(let reason) = error.kind else {
            Issue.record("expected malformedXML, got \(error.kind)")
            return
        }
        #expect(!reason.isEmpty)
        #expect(error.file == file)
        #expect(error.line != nil)
        #expect(error.description.hasPrefix(file.path))
    }

    @Test func emptyDataIsMalformed() throws {
        let error = try #require(XcodeModelFixtures.error(loading: "", file: file))
        guard case .malformedXML = error.kind else {
            Issue.record("expected malformedXML, got \(error.kind)")
            return
        }
        #expect(error.file == file)
    }

    @Test func invalidUTF8IsMalformedAndLocated() throws {
        var bytes = Array(XcodeModelFixtures.single().utf8)
        let lineFour = try #require(bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }.dropFirst(2).first)
        bytes[lineFour + 6] = 0xFF
        #expect(throws: ModelError(.malformedXML(reason: "the file is not valid UTF-8"), file: file, line: 4)) {
            try NSManagedObjectModel.load(xml: Data(bytes), file: file)
        }
    }

    @Test func documentTypeDeclarationsAreRefused() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE model [<!ENTITY big "big">]>
            <model><entity name="&big;"/></model>
            """
        let error = try #require(XcodeModelFixtures.error(loading: text))
        #expect(error.kind == .malformedXML(reason: "model files have no document type declaration"))
    }

    /// A processing instruction other than the declaration is refused before the parser sees it:
    /// FoundationXML's parser crashes on one without data (found by fuzzing, model-xml). The
    /// declaration itself, after a byte-order mark or white space, is taken.
    @Test func processingInstructionsBesidesTheDeclarationAreRefused() throws {
        let reason = "model files have no processing instructions besides the XML declaration"
        let withoutData = "<?xml version=\"1.0\"?>\n<model>\n<?x?>\n</model>"
        let error = try #require(XcodeModelFixtures.error(loading: withoutData, file: file))
        #expect(error.kind == .malformedXML(reason: reason))
        #expect(error.file == file && error.line == 3)
        let first = try #require(XcodeModelFixtures.error(loading: "<?xNSManagedO?>\n<model/>"))
        #expect(first.kind == .malformedXML(reason: reason) && first.line == 1)
        let withData = try #require(XcodeModelFixtures.error(loading: "<model><?target some data?></model>"))
        #expect(withData.kind == .malformedXML(reason: reason))
        let declared = "\u{FEFF}" + XcodeModelFixtures.single()
        #expect(XcodeModelFixtures.error(loading: declared) == nil)
        #expect(XcodeModelXMLElement.processingInstructionAfterDeclaration(in: Data(XcodeModelFixtures.single().utf8)) == nil)
    }

    @Test func aRootOtherThanModelIsRejected() throws {
        let error = try #require(XcodeModelFixtures.error(loading: #"<plist version="1.0"><dict/></plist>"#, file: file))
        #expect(error.kind == .malformedXML(reason: "the root element is <plist>, not <model>"))
        #expect(error.file == file && error.line == 1)
    }

    @Test func unknownAttributeTypeNamesLineEntityAndProperty() throws {
        let text = XcodeModelFixtures.single(attribute: #"<attribute name="size" attributeType="Integer 128"/>"#)
        let error = try #require(XcodeModelFixtures.error(loading: text, file: file))
        #expect(error.kind == .invalidXMLValue(attribute: "attributeType", value: "Integer 128"))
        #expect(error.file == file)
        #expect(error.line == 4)
        #expect(error.entity == "Item")
        #expect(error.property == "size")
    }

    @Test func unknownDeletionRuleNamesTheRelationship() throws {
        let text = XcodeModelFixtures.single(
            attribute: #"<relationship name="owner" maxCount="1" deletionRule="Obliterate" destinationEntity="Item"/>"#)
        let error = try #require(XcodeModelFixtures.error(loading: text))
        #expect(error.kind == .invalidXMLValue(attribute: "deletionRule", value: "Obliterate"))
        #expect(error.entity == "Item" && error.property == "owner" && error.line == 4)
    }

    @Test func countsMustBeNumbers() throws {
        let text = XcodeModelFixtures.single(
            attribute: #"<relationship name="owner" maxCount="one" deletionRule="Nullify" destinationEntity="Item"/>"#)
        let error = try #require(XcodeModelFixtures.error(loading: text))
        #expect(error.kind == .invalidXMLValue(attribute: "maxCount", value: "one"))
        #expect(error.property == "owner")
    }

    @Test func missingEntityName() throws {
        let text = XcodeModelFixtures.single(entity: #"<entity representedClassName="Item">"#)
        let error = try #require(XcodeModelFixtures.error(loading: text, file: file))
        #expect(error.kind == .missingXMLAttribute(element: "entity", attribute: "name"))
        #expect(error.line == 3 && error.file == file)
    }

    @Test func missingPropertyNames() throws {
        let attribute = XcodeModelFixtures.single(attribute: #"<attribute attributeType="String"/>"#)
        #expect(
            XcodeModelFixtures.error(loading: attribute)?.kind == .missingXMLAttribute(element: "attribute", attribute: "name"))
        #expect(XcodeModelFixtures.error(loading: attribute)?.entity == "Item")
        let relationship = XcodeModelFixtures.single(attribute: #"<relationship destinationEntity="Item"/>"#)
        #expect(
            XcodeModelFixtures.error(loading: relationship)?.kind
                == .missingXMLAttribute(element: "relationship", attribute: "name"))
    }

    @Test func unknownParentEntity() throws {
        let text = XcodeModelFixtures.single(entity: #"<entity name="Item" parentEntity="Thing">"#)
        let error = try #require(XcodeModelFixtures.error(loading: text))
        #expect(error.kind == .unknownParentEntity(name: "Thing"))
        #expect(error.entity == "Item" && error.line == 3)
    }

    @Test func inheritanceCycles() throws {
        let text = """
            <model>
                <entity name="A" parentEntity="B"/>
                <entity name="B" parentEntity="A"/>
                <entity name="C" parentEntity="C"/>
            </model>
            """
        let error = try #require(XcodeModelFixtures.error(loading: text))
        #expect(error.kind == .inheritanceCycle)
        #expect(error.entity == "A")
        let selfParent = try #require(XcodeModelFixtures.error(loading: "<model><entity name=\"C\" parentEntity=\"C\"/></model>"))
        #expect(selfParent.kind == .inheritanceCycle && selfParent.entity == "C")
    }

    @Test func invalidFetchIndexValues() throws {
        let text = XcodeModelFixtures.single(
            attribute:
                #"<fetchIndex name="byTitle"><fetchIndexElement property="title" type="Hash" order="ascending"/></fetchIndex>"#)
        #expect(XcodeModelFixtures.error(loading: text)?.kind == .invalidXMLValue(attribute: "type", value: "Hash"))
    }

    @Test func compositeTypesThatExpandWithoutEndAreRefused() throws {
        // Twenty types, each made of ten attributes of the next: 10^20 attributes once expanded.
        let types = (0..<20).map { level in
            let elements = (0..<10).map { index in
                #"<attribute name="a\#(index)" attributeType="Composite" composite="T\#(level + 1)"/>"#
            }
            return #"<composite name="T\#(level)">\#(elements.joined())</composite>"#
        }
        let text = XcodeModelFixtures.single(
            attribute: #"<attribute name="value" optional="YES" attributeType="Composite" composite="T0"/>"#
        ).replacingOccurrences(of: "</model>", with: types.joined() + "</model>")
        let error = try #require(XcodeModelFixtures.error(loading: text))
        #expect(error.kind == .malformedXML(reason: "composite types expand to more than 100000 attributes"))
    }

    @Test func nonexistentPath() throws {
        let url = URL(fileURLWithPath: "/nonexistent/Model.xcdatamodeld")
        #expect(throws: ModelError(.unreadableFile(reason: "no such file"), file: url)) {
            try NSManagedObjectModel.load(contentsOf: url)
        }
        #expect(NSManagedObjectModel(contentsOf: url) == nil)
    }

    @Test func aDirectoryThatIsNoModelIsRejected() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: ModelError(.notAModelFile, file: directory)) {
            try NSManagedObjectModel.load(contentsOf: directory)
        }
    }
}
