// The stdio testkit upstream both census scripts measure through: 4 resources of 1 KiB and 2 echo tools.
export const KIT_ARGS = [
  '--stdio',
  '--name',
  'kit',
  '--resources',
  '4',
  '--payload-bytes',
  '1024',
  '--tools',
  '2',
];
