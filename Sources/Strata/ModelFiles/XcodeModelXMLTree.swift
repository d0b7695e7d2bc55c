import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of a model file's XML, with the line it starts on. The reader first turns
/// the whole file into these, then builds the model from them, so that building needs no
/// parser state.
struct XcodeModelXMLElement {
    var name: String
    var attributes: [String: String]
    var line: Int
    var children: [XcodeModelXMLElement] = []

    /// The children with the given element name, in file order.
    func children(named name: String) -> [XcodeModelXMLElement] {
        children.filter { $0.name == name }
    }

    /// The value of a YES/NO attribute: `true` for "YES" (and the "true"/"1" some tools
    /// write), `false` otherwise or when absent.
    func flag(_ attribute: String) -> Bool {
        switch attributes[attribute] {
        case "YES", "yes", "true", "TRUE", "1": true
        default: false
        }
    }

    /// Parses XML data into its root element.
    ///
    /// - Throws: `.malformedXML` with the line of the problem when the data is not well
    ///   formed XML.
    static func parse(_ data: Data, file: URL?) throws(ModelError) -> XcodeModelXMLElement {
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let succeeded = parser.parse()
        guard succeeded, builder.failure == nil, let root = builder.root else {
            let reason =
                builder.failure
                ?? parser.parserError.map { String(describing: ($0 as NSError).localizedDescription) }
                ?? "the document has no root element"
            throw ModelError(.malformedXML(reason: reason), file: file, line: max(parser.lineNumber, 1))
        }
        return root
    }
}

/// Collects `XMLParser` events into a tree of `XcodeModelXMLElement`.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [XcodeModelXMLElement] = []
    private(set) var root: XcodeModelXMLElement?
    private(set) var failure: String?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        if root != nil, stack.isEmpty {
            failure = "content after the root element"
            parser.abortParsing()
            return
        }
        stack.append(XcodeModelXMLElement(name: elementName, attributes: attributeDict, line: parser.lineNumber))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if failure == nil { failure = (parseError as NSError).localizedDescription }
    }
}
