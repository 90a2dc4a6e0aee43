/**
 * A small DICOM data dictionary: keywords of the common tags, so the list of
 * dropped tags shown to the user reads "PatientName (0010,0010)" rather than
 * bare numbers. It is deliberately not complete (the full dictionary is
 * thousands of entries); unknown tags are shown by number.
 */

// Keyed by group, then element (hex without separators), to keep the table compact and easy to review.
const KEYWORDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '0002': {
    '0001': 'FileMetaInformationVersion', '0002': 'MediaStorageSOPClassUID', '0003': 'MediaStorageSOPInstanceUID',
    '0010': 'TransferSyntaxUID', '0012': 'ImplementationClassUID', '0013': 'ImplementationVersionName',
    '0016': 'SourceApplicationEntityTitle', '0017': 'SendingApplicationEntityTitle', '0018': 'ReceivingApplicationEntityTitle',
    '0100': 'PrivateInformationCreatorUID', '0102': 'PrivateInformation',
  },
  '0008': {
    '0005': 'SpecificCharacterSet', '0008': 'ImageType', '0012': 'InstanceCreationDate', '0013': 'InstanceCreationTime',
    '0014': 'InstanceCreatorUID', '0016': 'SOPClassUID', '0018': 'SOPInstanceUID', '0020': 'StudyDate', '0021': 'SeriesDate',
    '0022': 'AcquisitionDate', '0023': 'ContentDate', '002A': 'AcquisitionDateTime', '0030': 'StudyTime', '0031': 'SeriesTime',
    '0032': 'AcquisitionTime', '0033': 'ContentTime', '0050': 'AccessionNumber', '0060': 'Modality', '0064': 'ConversionType', '0100': 'CodeValue', '0102': 'CodingSchemeDesignator', '0104': 'CodeMeaning',
    '0070': 'Manufacturer', '0080': 'InstitutionName', '0081': 'InstitutionAddress', '0090': 'ReferringPhysicianName',
    '0092': 'ReferringPhysicianAddress', '0094': 'ReferringPhysicianTelephoneNumbers', '0201': 'TimezoneOffsetFromUTC',
    '1010': 'StationName', '1030': 'StudyDescription', '103E': 'SeriesDescription', '1040': 'InstitutionalDepartmentName',
    '1048': 'PhysiciansOfRecord', '1050': 'PerformingPhysicianName', '1060': 'NameOfPhysiciansReadingStudy',
    '1070': 'OperatorsName', '1080': 'AdmittingDiagnosesDescription', '1090': 'ManufacturerModelName',
    '1110': 'ReferencedStudySequence', '1111': 'ReferencedPerformedProcedureStepSequence', '1115': 'ReferencedSeriesSequence',
    '1120': 'ReferencedPatientSequence', '1140': 'ReferencedImageSequence', '1150': 'ReferencedSOPClassUID',
    '1155': 'ReferencedSOPInstanceUID', '2111': 'DerivationDescription', '2112': 'SourceImageSequence',
    '9215': 'DerivationCodeSequence',
  },
  '0010': {
    '0010': 'PatientName', '0020': 'PatientID', '0021': 'IssuerOfPatientID', '0030': 'PatientBirthDate',
    '0032': 'PatientBirthTime', '0040': 'PatientSex', '1000': 'OtherPatientIDs', '1001': 'OtherPatientNames',
    '1002': 'OtherPatientIDsSequence', '1010': 'PatientAge', '1020': 'PatientSize', '1030': 'PatientWeight',
    '1040': 'PatientAddress', '1060': 'PatientMotherBirthName', '2154': 'PatientTelephoneNumbers', '2160': 'EthnicGroup',
    '2180': 'Occupation', '21B0': 'AdditionalPatientHistory', '21C0': 'PregnancyStatus', '4000': 'PatientComments',
  },
  '0018': {
    '0010': 'ContrastBolusAgent', '0015': 'BodyPartExamined', '0020': 'ScanningSequence', '0021': 'SequenceVariant',
    '0022': 'ScanOptions', '0023': 'MRAcquisitionType', '0024': 'SequenceName', '0050': 'SliceThickness', '0060': 'KVP',
    '0080': 'RepetitionTime', '0081': 'EchoTime', '0082': 'InversionTime', '0083': 'NumberOfAverages',
    '0084': 'ImagingFrequency', '0085': 'ImagedNucleus', '0086': 'EchoNumbers', '0087': 'MagneticFieldStrength', '0088': 'SpacingBetweenSlices', '0090': 'DataCollectionDiameter', '0091': 'EchoTrainLength',
    '0095': 'PixelBandwidth', '1000': 'DeviceSerialNumber', '1020': 'SoftwareVersions', '1030': 'ProtocolName', '1040': 'ContrastBolusRoute',
    '1100': 'ReconstructionDiameter', '1110': 'DistanceSourceToDetector', '1111': 'DistanceSourceToPatient',
    '1120': 'GantryDetectorTilt', '1130': 'TableHeight', '1140': 'RotationDirection', '1150': 'ExposureTime',
    '1151': 'XRayTubeCurrent', '1152': 'Exposure', '1160': 'FilterType', '1190': 'FocalSpots', '1210': 'ConvolutionKernel',
    '1250': 'ReceiveCoilName', '1310': 'AcquisitionMatrix', '1314': 'FlipAngle', '5100': 'PatientPosition',
  },
  '0020': {
    '000D': 'StudyInstanceUID', '000E': 'SeriesInstanceUID', '0010': 'StudyID', '0011': 'SeriesNumber',
    '0012': 'AcquisitionNumber', '0013': 'InstanceNumber', '0020': 'PatientOrientation', '0032': 'ImagePositionPatient',
    '0037': 'ImageOrientationPatient', '0052': 'FrameOfReferenceUID', '0060': 'Laterality',
    '1040': 'PositionReferenceIndicator', '1041': 'SliceLocation', '4000': 'ImageComments',
  },
  '0028': {
    '0002': 'SamplesPerPixel', '0004': 'PhotometricInterpretation', '0006': 'PlanarConfiguration', '0008': 'NumberOfFrames',
    '0009': 'FrameIncrementPointer', '0010': 'Rows', '0011': 'Columns', '0030': 'PixelSpacing', '0034': 'PixelAspectRatio',
    '0100': 'BitsAllocated', '0101': 'BitsStored', '0102': 'HighBit', '0103': 'PixelRepresentation',
    '0106': 'SmallestImagePixelValue', '0107': 'LargestImagePixelValue', '0120': 'PixelPaddingValue',
    '0301': 'BurnedInAnnotation', '1050': 'WindowCenter', '1051': 'WindowWidth', '1052': 'RescaleIntercept',
    '1053': 'RescaleSlope', '1054': 'RescaleType', '1055': 'WindowCenterWidthExplanation', '2110': 'LossyImageCompression',
    '2112': 'LossyImageCompressionRatio', '2114': 'LossyImageCompressionMethod', '3010': 'VOILUTSequence',
  },
  '0032': {
    '000A': 'StudyStatusID', '1032': 'RequestingPhysician', '1033': 'RequestingService',
    '1060': 'RequestedProcedureDescription', '1064': 'RequestedProcedureCodeSequence', '4000': 'StudyComments',
  },
  '0038': {
    '0010': 'AdmissionID', '0300': 'CurrentPatientLocation', '0400': 'PatientInstitutionResidence', '0500': 'PatientState',
    '4000': 'VisitComments',
  },
  '0040': {
    '0241': 'PerformedStationAETitle', '0242': 'PerformedStationName', '0243': 'PerformedLocation',
    '0244': 'PerformedProcedureStepStartDate', '0245': 'PerformedProcedureStepStartTime', '0253': 'PerformedProcedureStepID',
    '0254': 'PerformedProcedureStepDescription', '0260': 'PerformedProtocolCodeSequence', '0275': 'RequestAttributesSequence',
    '1001': 'RequestedProcedureID', '2016': 'PlacerOrderNumberImagingServiceRequest',
    '2017': 'FillerOrderNumberImagingServiceRequest', 'A730': 'ContentSequence',
  },
  '0088': { '0140': 'StorageMediaFileSetUID' },
  '7FE0': { '0008': 'FloatPixelData', '0009': 'DoubleFloatPixelData', '0010': 'PixelData' },
  FFFC: { FFFC: 'DataSetTrailingPadding' },
};

function hex4(n: number): string {
  return n.toString(16).toUpperCase().padStart(4, '0');
}

/** Builds a tag number from its group and element. */
export function tagOf(group: number, element: number): number {
  return ((group << 16) | element) >>> 0;
}

/** `(0010,0010)`: the way DICOM documents and viewers print a tag. */
export function formatTag(tag: number): string {
  return `(${hex4(tag >>> 16)},${hex4(tag & 0xffff)})`;
}

/** The standard keyword of a tag (`PatientName`), or `undefined` if not in this dictionary. */
export function tagKeyword(tag: number): string | undefined {
  return KEYWORDS[hex4(tag >>> 16)]?.[hex4(tag & 0xffff)];
}

/** Private tags live in odd groups (PS3.5 §7.8); their meaning is vendor-specific and may hide identifiers. */
export function isPrivateTag(tag: number): boolean {
  return (tag >>> 16) % 2 === 1;
}
